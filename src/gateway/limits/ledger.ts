import type { Db } from '../storage/db';

/**
 * The limit refusals the gateway itself answers with. Their usage rows hold no work, so they do
 * not count as requests against a key's requests per minute (a client hammering a refused key
 * would otherwise never get back under its limit).
 */
export const REFUSAL_CODES = [
  'budget_exceeded',
  'rate_limit_exceeded',
  'concurrency_limit_exceeded',
  'INVALID_API_KEY',
] as const;

/** What a key has used since a moment, read from the usage log. */
export interface RecordedUse {
  costMicros: number;
  images: number;
}

/**
 * Reads a key's recorded use from usage_records: the log is the only record of what a key used,
 * so limits hold across restarts and never drift from the usage page. The (api_key_id,
 * created_at) index serves every query.
 */
export interface UsageLedger {
  since(keyId: string, since: number): RecordedUse;
  /** The requests counted against requests per minute that started after `since`. */
  requestsSince(keyId: string, since: number): Array<{ requestId: string; createdAt: number }>;
}

export function createUsageLedger(db: Db): UsageLedger {
  const sums = db.prepare(
    `SELECT COALESCE(SUM(cost_micros), 0) AS costMicros, COALESCE(SUM(images), 0) AS images
     FROM usage_records WHERE api_key_id = ? AND created_at >= ?`,
  );
  const refusals = REFUSAL_CODES.map((code) => `'${code}'`).join(', ');
  const requests = db.prepare(
    `SELECT request_id AS requestId, created_at AS createdAt FROM usage_records
     WHERE api_key_id = ? AND created_at > ? AND (error_code IS NULL OR error_code NOT IN (${refusals}))`,
  );
  return {
    since: (keyId, since) => sums.get(keyId, since) as RecordedUse,
    requestsSince: (keyId, since) =>
      requests.all(keyId, since) as Array<{ requestId: string; createdAt: number }>,
  };
}
