import { create } from 'zustand';
import { DEFAULT_IMAGE_PRICES, type PriceTable } from '../../shared/costEstimate';
import { gateway } from '../lib/api/images';

/**
 * Prices per model from GET /api/admin/prices. When they cannot be read the documented defaults
 * ($5 / $8 / $30 per 1M tokens) are used, and the page says so.
 */
export interface PricesState {
  phase: 'idle' | 'loading' | 'ready' | 'defaults';
  prices: Record<string, PriceTable>;
  load: () => Promise<void>;
}

export function createPricesStore(
  fetchPrices: () => Promise<Record<string, PriceTable>> = gateway.prices,
) {
  return create<PricesState>()((set, get) => ({
    phase: 'idle',
    prices: {},
    load: async () => {
      if (get().phase !== 'idle') return;
      set({ phase: 'loading' });
      try {
        set({ phase: 'ready', prices: await fetchPrices() });
      } catch {
        set({ phase: 'defaults', prices: {} });
      }
    },
  }));
}

export function priceFor(prices: Record<string, PriceTable>, model: string): PriceTable {
  return prices[model] ?? DEFAULT_IMAGE_PRICES;
}

export const usePricesStore = createPricesStore();
