import { create } from 'zustand';
import { gateway } from '../lib/gateway';

/**
 * The studio session (docs/admin-api.md): 'login' means there is no session cookie and the user
 * must open the login link printed by `atelier serve` (the Electron window is logged in already).
 */
export interface SessionState {
  phase: 'checking' | 'ok' | 'login' | 'error';
  error: string | null;
  check: () => Promise<void>;
}

export function createSessionStore(probe: () => Promise<'ok' | 'login'> = gateway.session) {
  return create<SessionState>()((set) => ({
    phase: 'checking',
    error: null,
    check: async () => {
      set({ phase: 'checking', error: null });
      try {
        set({ phase: await probe() });
      } catch (error) {
        set({ phase: 'error', error: error instanceof Error ? error.message : String(error) });
      }
    },
  }));
}

export const useSessionStore = createSessionStore();
