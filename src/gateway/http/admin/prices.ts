import { Router } from 'express';
import { putPriceBodySchema, type PriceView } from '../../../shared/admin';
import {
  PRICE_FIELDS,
  dollarsToMicros,
  formatMicros,
  type PriceRow,
  type Prices,
} from '../../billing/prices';
import { invalidParam } from '../../core/errors';
import type { PricesRepository } from '../../storage/pricesRepository';
import { parse } from './parse';

function priceView(row: PriceRow): PriceView {
  return {
    model: row.model,
    textInput: formatMicros(row.textInput),
    imageInput: formatMicros(row.imageInput),
    textOutput: formatMicros(row.textOutput),
    imageOutput: formatMicros(row.imageOutput),
    updatedAt: row.updatedAt,
  };
}

/**
 * /api/admin/prices: dollars per 1M tokens as decimal strings, kept as integer micro-dollars.
 * A change prices the next request; records already written keep the cost they were given.
 */
export function pricesAdmin(prices: PricesRepository): Router {
  const router = Router();
  const answer = () => ({ prices: prices.list().map(priceView) });

  router.get('/prices', (_req, res) => {
    res.json(answer());
  });

  router.put('/prices/:model', async (req, res) => {
    const model = req.params.model.trim();
    if (!model || model.length > 100)
      throw invalidParam('model', 'A model name is 1 to 100 characters.');
    const body = parse(putPriceBodySchema, req.body);
    const micros: Partial<Prices> = {};
    for (const field of PRICE_FIELDS) {
      const value = body[field];
      if (value === undefined) continue;
      try {
        micros[field] = dollarsToMicros(value);
      } catch (error) {
        throw invalidParam(field, (error as Error).message);
      }
    }
    try {
      await prices.set(model, micros);
    } catch (error) {
      if (error instanceof RangeError) throw invalidParam('model', error.message);
      throw error;
    }
    res.json(answer());
  });

  return router;
}
