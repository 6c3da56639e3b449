import { create } from 'zustand';
import {
  applyTheme,
  readThemePreference,
  writeThemePreference,
  type ThemePreference,
} from '../lib/theme';

export interface ThemeState {
  preference: ThemePreference;
  setPreference: (preference: ThemePreference) => void;
}

/** Dark, light, or the system's choice (the default); remembered in localStorage. */
export const useThemeStore = create<ThemeState>()((set) => ({
  preference: readThemePreference(),
  setPreference: (preference) => {
    writeThemePreference(preference);
    applyTheme(preference);
    set({ preference });
  },
}));
