import { create } from 'zustand';
import { gateway, type GatewayStatus } from '../lib/gateway';

export interface StatusState {
  phase: 'idle' | 'loading' | 'ready' | 'error';
  status: GatewayStatus | null;
  error: string | null;
  load: () => Promise<void>;
}

export function createStatusStore(fetchStatusImpl: () => Promise<GatewayStatus> = gateway.status) {
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
  }));
}

export const useStatusStore = createStatusStore();
