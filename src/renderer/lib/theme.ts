import { readStored, writeStored } from './storage';

export const THEME_PREFERENCES = ['system', 'light', 'dark'] as const;
export type ThemePreference = (typeof THEME_PREFERENCES)[number];

const KEY = 'atelier.theme';

function isPreference(value: unknown): value is ThemePreference {
  return (THEME_PREFERENCES as readonly unknown[]).includes(value);
}

export function readThemePreference(): ThemePreference {
  return readStored(KEY, (v) => (isPreference(v) ? v : null)) ?? 'system';
}

export function writeThemePreference(preference: ThemePreference): void {
  writeStored(KEY, preference);
}

/** `data-theme` on <html> picks the palette; without it the system's choice applies (CSS). */
export function applyTheme(preference: ThemePreference): void {
  if (typeof document === 'undefined') return;
  const root = document.documentElement;
  if (preference === 'system') delete root.dataset.theme;
  else root.dataset.theme = preference;
}
