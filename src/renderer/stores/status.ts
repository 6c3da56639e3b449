import { create } from 'zustand';
import { gateway } from '../lib/api/images';
import type { GatewayStatus } from '../lib/api/status';

export interface StatusState {
  phase: 'idle' | 'loading' | 'ready' | 'error';
  status: GatewayStatus | null;
  error: string | null;
  load: () => Promise<void>;
  /**
   * Loads the status again without leaving `ready` (the shell stays as it is): accounts were
   * added or removed, or one started or ended a cooldown. A failed refresh keeps what is shown.
   */
  refresh: () => Promise<void>;
}

export function createStatusStore(fetchStatusImpl: () => Promise<GatewayStatus> = gateway.status) {
  let refreshing: Promise<void> | null = null;
  return create<StatusState>()((set, get) => ({
    phase: 'idle',
    status: null,
    error: null,
    load: async () => {
      if (get().phase === 'loading') return;
      set({ phase: 'loading', error: null });
      try {
        set({ phase: 'ready', status: await fetchStatusImpl() });
      } catch (error) {
        set({ phase: 'error', error: error instanceof Error ? error.message : String(error) });
      }
    },
    refresh: () => {
      if (get().phase !== 'ready') return get().load();
      refreshing ??= fetchStatusImpl()
        .then(
          (status) => {
            // A load started meanwhile owns the state.
            if (get().phase === 'ready') set({ status });
          },
          () => undefined,
        )
        .finally(() => (refreshing = null));
      return refreshing;
    },
  }));
}

export const useStatusStore = createStatusStore();
