/**
 * Prices per model (/api/admin/prices): the one place the studio reads and sets them, as the
 * Settings page's rows or as the price tables its estimates use.
 */
import {
  dollarsToMicros,
  DEFAULT_IMAGE_PRICES,
  type PriceTable,
} from '../../../shared/costEstimate';
import {
  pricesResponseSchema,
  type PricesResponse,
  type PutPriceBody,
} from '../../../shared/admin';
import type { Requester } from './request';

/** Prices of GET /api/admin/prices (dollars per 1M tokens as decimal strings) in micro-dollars. */
export function parsePrices(body: PricesResponse): Record<string, PriceTable> {
  const out: Record<string, PriceTable> = {};
  for (const row of body.prices) {
    const read = (field: keyof PriceTable) =>
      dollarsToMicros(row[field]) ?? DEFAULT_IMAGE_PRICES[field];
    out[row.model] = {
      textInput: read('textInput'),
      imageInput: read('imageInput'),
      textOutput: read('textOutput'),
      imageOutput: read('imageOutput'),
    };
  }
  return out;
}

export function pricesApi(request: Requester) {
  const read = (signal?: AbortSignal) =>
    request.json(pricesResponseSchema, '/api/admin/prices', { signal });
  return {
    /** The rows as the gateway keeps them (decimal strings). */
    prices: async (signal?: AbortSignal) => (await read(signal)).prices,
    /** The same, as micro-dollar price tables by model, for estimates. */
    priceTables: async (signal?: AbortSignal) => parsePrices(await read(signal)),
    setPrice: async (model: string, body: PutPriceBody) =>
      (
        await request.json(pricesResponseSchema, `/api/admin/prices/${encodeURIComponent(model)}`, {
          method: 'PUT',
          body,
        })
      ).prices,
  };
}
