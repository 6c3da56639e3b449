import { PRICE_FIELDS, type PriceRow, type Prices } from '../billing/prices';
import type { Db } from './db';

export interface PricesRepository {
  get(model: string): PriceRow | null;
  /** Sorted by model. */
  list(): PriceRow[];
  /**
   * Changes some prices of a model, or adds a model. A new model needs all four prices: a price
   * left out by accident would silently bill those tokens at zero.
   */
  set(model: string, prices: Partial<Prices>): PriceRow;
}

const SELECT = `SELECT model, text_input AS textInput, image_input AS imageInput,
  text_output AS textOutput, image_output AS imageOutput, updated_at AS updatedAt FROM prices`;

export function createPricesRepository(db: Db, clock: () => number = Date.now): PricesRepository {
  const selectOne = db.prepare(`${SELECT} WHERE model = ?`);
  const selectAll = db.prepare(`${SELECT} ORDER BY model`);
  const upsert = db.prepare(
    `INSERT INTO prices (model, text_input, image_input, text_output, image_output, updated_at)
     VALUES (@model, @textInput, @imageInput, @textOutput, @imageOutput, @updatedAt)
     ON CONFLICT (model) DO UPDATE SET text_input = excluded.text_input,
       image_input = excluded.image_input, text_output = excluded.text_output,
       image_output = excluded.image_output, updated_at = excluded.updated_at`,
  );

  const get = (model: string) => (selectOne.get(model) as PriceRow | undefined) ?? null;

  return {
    get,
    list: () => selectAll.all() as PriceRow[],
    set(model, prices) {
      if (!model.trim()) throw new RangeError('A price needs a model name');
      for (const field of PRICE_FIELDS) {
        const value = prices[field];
        if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
          throw new RangeError(
            `${field} must be a whole, non-negative number of micro-dollars, got ${value}`,
          );
        }
      }
      // Read and write in one transaction so two partial updates cannot undo each other.
      return db
        .transaction((): PriceRow => {
          const current = get(model);
          const missing = PRICE_FIELDS.filter((f) => prices[f] === undefined);
          if (!current && missing.length > 0) {
            throw new RangeError(`${model} has no prices yet: also give ${missing.join(', ')}`);
          }
          const row: PriceRow = {
            model,
            textInput: prices.textInput ?? current!.textInput,
            imageInput: prices.imageInput ?? current!.imageInput,
            textOutput: prices.textOutput ?? current!.textOutput,
            imageOutput: prices.imageOutput ?? current!.imageOutput,
            updatedAt: clock(),
          };
          upsert.run(row);
          return row;
        })
        .immediate();
    },
  };
}
