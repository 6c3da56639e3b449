import { PRICE_FIELDS, type PriceRow, type Prices } from '../billing/prices';
import type { SqlEngine } from './engine';

export interface PricesRepository {
  /** A model's prices, from the snapshot (every request is priced: no query per request). */
  get(model: string): PriceRow | null;
  /** Sorted by model. */
  list(): PriceRow[];
  /**
   * Changes some prices of a model, or adds a model. A new model needs all four prices: a price
   * left out by accident would silently bill those tokens at zero.
   */
  set(model: string, prices: Partial<Prices>): Promise<PriceRow>;
  /** Whether another connection changed the database since the snapshot was read. */
  stale(): boolean;
  /** Reads the snapshot again. */
  refresh(): Promise<void>;
}

const SELECT = `SELECT model, text_input AS "textInput", image_input AS "imageInput",
  text_output AS "textOutput", image_output AS "imageOutput", updated_at AS "updatedAt" FROM prices`;

/**
 * Opens the price table as a snapshot, as the settings are (settingsRepository.ts): read whole
 * at open, following this repository's own writes, read again when another connection (`atelier
 * prices set`) changed the database (http/freshSnapshots.ts), so a change prices the next request.
 */
export async function openPricesRepository(
  engine: SqlEngine,
  clock: () => number = Date.now,
): Promise<PricesRepository> {
  let byModel = new Map<string, PriceRow>();
  let stamp = engine.changeStamp('prices');
  let writes = 0;

  const refresh = async (): Promise<void> => {
    for (;;) {
      const before = writes;
      const seen = engine.changeStamp('prices');
      const rows = await engine.all<PriceRow>(`${SELECT} ORDER BY model`);
      // A write of ours landed while we read: read again, or the snapshot would lose it.
      if (before !== writes) continue;
      byModel = new Map(rows.map((row) => [row.model, row]));
      stamp = seen;
      return;
    }
  };
  await refresh();

  return {
    get: (model) => byModel.get(model) ?? null,
    list: () => [...byModel.values()].sort((a, b) => (a.model < b.model ? -1 : 1)),
    async set(model, prices) {
      if (!model.trim()) throw new RangeError('A price needs a model name');
      for (const field of PRICE_FIELDS) {
        const value = prices[field];
        if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
          throw new RangeError(
            `${field} must be a whole, non-negative number of micro-dollars, got ${value}`,
          );
        }
      }
      // Read and write in one transaction (the row locked on PostgreSQL) so two partial updates
      // cannot undo each other.
      const lock = engine.kind === 'postgres' ? ' FOR UPDATE' : '';
      const row = await engine.transaction(async (tx): Promise<PriceRow> => {
        const current = await tx.get<PriceRow>(`${SELECT} WHERE model = ?${lock}`, [model]);
        const missing = PRICE_FIELDS.filter((f) => prices[f] === undefined);
        if (!current && missing.length > 0) {
          throw new RangeError(`${model} has no prices yet: also give ${missing.join(', ')}`);
        }
        const next: PriceRow = {
          model,
          textInput: prices.textInput ?? current!.textInput,
          imageInput: prices.imageInput ?? current!.imageInput,
          textOutput: prices.textOutput ?? current!.textOutput,
          imageOutput: prices.imageOutput ?? current!.imageOutput,
          updatedAt: clock(),
        };
        await tx.run(
          `INSERT INTO prices (model, text_input, image_input, text_output, image_output, updated_at)
           VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (model) DO UPDATE SET text_input = excluded.text_input,
             image_input = excluded.image_input, text_output = excluded.text_output,
             image_output = excluded.image_output, updated_at = excluded.updated_at`,
          [
            next.model,
            next.textInput,
            next.imageInput,
            next.textOutput,
            next.imageOutput,
            next.updatedAt,
          ],
        );
        await tx.announceChange('prices');
        return next;
      });
      writes += 1;
      byModel = new Map(byModel).set(model, row);
      return row;
    },
    stale: () => engine.changeStamp('prices') !== stamp,
    refresh,
  };
}
