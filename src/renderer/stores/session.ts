import { create } from 'zustand';
import { gateway } from '../lib/api/images';

/**
 * The studio session (docs/admin-api.md): 'login' means there is no session cookie and the user
 * must open the login link printed by `atelier serve` (the Electron window is logged in already).
 */
export interface SessionState {
  phase: 'checking' | 'ok' | 'login' | 'error';
  /** The studio had a session and lost it (it expired, or the gateway restarted). */
  expired: boolean;
  error: string | null;
  check: () => Promise<void>;
  /**
   * Something answered 401: probe the session without leaving the page, and show the login
   * screen only if it has really ended (a 401 can also mean a disabled Studio key).
   */
  verify: () => Promise<void>;
}

export function createSessionStore(probe: () => Promise<'ok' | 'login'> = gateway.session) {
  let verifying: Promise<void> | null = null;
  return create<SessionState>()((set, get) => ({
    phase: 'checking',
    expired: false,
    error: null,
    check: async () => {
      set({ phase: 'checking', error: null });
      try {
        const phase = await probe();
        set({ phase, expired: phase === 'login' && get().expired });
      } catch (error) {
        set({ phase: 'error', error: error instanceof Error ? error.message : String(error) });
      }
    },
    verify: () => {
      if (get().phase !== 'ok') return Promise.resolve();
      verifying ??= probe()
        .then(
          (phase) => {
            if (phase === 'login' && get().phase === 'ok') set({ phase, expired: true });
          },
          // Unreachable is not logged out: the pages say the gateway did not answer.
          () => undefined,
        )
        .finally(() => (verifying = null));
      return verifying;
    },
  }));
}

export const useSessionStore = createSessionStore();
