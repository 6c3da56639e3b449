import { Segmented } from '../../components/fields';
import type { ThemePreference } from '../../lib/theme';
import { useThemeStore } from '../../stores/theme';

const OPTIONS = [
  { value: 'system', label: 'Auto' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
] as const satisfies ReadonlyArray<{ value: ThemePreference; label: string }>;

export function ThemeSwitch() {
  const preference = useThemeStore((s) => s.preference);
  const setPreference = useThemeStore((s) => s.setPreference);
  return (
    <Segmented
      label="Theme"
      value={preference}
      options={OPTIONS}
      onChange={setPreference}
      testId="theme-switch"
      hideLabel
    />
  );
}
