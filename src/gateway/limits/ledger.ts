import { LEASE_CLOCK, type SqlEngine, type SqlQueries } from '../storage/engine';

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

/** What a key has used since a moment: charged (usage log) or reserved (requests in flight). */
export interface RecordedUse {
  costMicros: number;
  images: number;
}

/** A request admitted under its key's limits, held in the database until its row is written. */
export interface Reservation {
  requestId: string;
  keyId: string;
  startedAt: number;
  /** The instance that holds it (and renews it while the request runs). */
  owner: string;
  /**
   * Until when it counts unless renewed, by the caller's clock: a dead instance's reservations
   * lapse by themselves. The database holds it as long from the lease clock's now
   * (storage/engine.ts LEASE_CLOCK), so instances whose clocks differ agree on when it lapses.
   */
  heldUntil: number;
}

/**
 * A key's use as one instance decides with it: inside `decide`, under a lock on the key (every
 * instance's decisions about one key take turns), so a check and the reservation it leads to are
 * one step across instances.
 */
export interface LedgerView {
  /** Charged in the usage log since `since` (its created_at). */
  recorded(keyId: string, since: number): Promise<RecordedUse>;
  /**
   * Charged since `since`, plus reserved by requests (of any instance) that started since then
   * and have no row yet: in one statement, so one snapshot. Two statements under PostgreSQL's
   * READ COMMITTED let a row committed between them (by a usage writer, which takes no key lock)
   * count in neither: the first did not see the row, the second no longer saw its reservation,
   * and one more request than the budget allows was admitted (test/team/multiInstance.test.ts).
   */
  used(keyId: string, since: number, now: number): Promise<RecordedUse>;
  /**
   * Start times of the key's requests after `since` counted against requests per minute, each
   * once: by its usage row once written, by its reservation until then.
   */
  requestTimes(keyId: string, since: number, now: number): Promise<number[]>;
  /** Holds a reservation of `use` (more is added with `add`); `now` is the caller's clock. */
  hold(reservation: Reservation, use: RecordedUse, now: number): Promise<void>;
  /** Adds to a held reservation what the request's estimate needs. */
  add(requestId: string, use: RecordedUse): Promise<void>;
}

/**
 * Reads a key's recorded use from usage_records and its reservations from limit_reservations:
 * the log is the only record of what a key used, so limits hold across restarts and instances and
 * never drift from the usage page; the reservations are every instance's requests in flight. The
 * (api_key_id, created_at) and (api_key_id, started_at) indexes serve every query.
 */
export interface UsageLedger extends LedgerView {
  /** Runs `fn` with the key locked: PostgreSQL's advisory lock, SQLite's write lock. */
  decide<T>(keyId: string, fn: (view: LedgerView) => Promise<T>): Promise<T>;
  /** The request's row is written (or lost): its reservation no longer counts. */
  release(requestId: string): Promise<void>;
  /**
   * The same, as a statement of a transaction the caller holds: the usage record's own commit
   * (usage/writer.ts), so ending a reservation costs no commit of its own.
   */
  releaseWithin(tx: SqlQueries, requestId: string): Promise<void>;
  /**
   * Extends the owner's reservations (its requests still run) to `heldUntil - now` from the lease
   * clock's now, and deletes every reservation that no longer counts: lapsed by the lease clock (a
   * dead instance's), or whose request's row is written (a release that failed).
   */
  renew(owner: string, heldUntil: number, now: number): Promise<void>;
}

const RELEASE = 'DELETE FROM limit_reservations WHERE request_id = ?';
const REFUSALS = REFUSAL_CODES.map((code) => `'${code}'`).join(', ');
/** A reservation counts while held and until its request's usage row exists (then the row does). */
const OPEN_RESERVATION = `held_until > ${LEASE_CLOCK} AND NOT EXISTS
  (SELECT 1 FROM usage_records u WHERE u.request_id = r.request_id)`;

function viewOn(q: SqlQueries): LedgerView {
  return {
    recorded: async (keyId, since) =>
      (await q.get<RecordedUse>(
        `SELECT COALESCE(SUM(cost_micros), 0) AS "costMicros", COALESCE(SUM(images), 0) AS images
         FROM usage_records WHERE api_key_id = ? AND created_at >= ?`,
        [keyId, since],
      ))!,
    used: async (keyId, since, now) =>
      (await q.get<RecordedUse>(
        `SELECT COALESCE(SUM(cost_micros), 0) AS "costMicros", COALESCE(SUM(images), 0) AS images
         FROM (SELECT cost_micros, images FROM usage_records
               WHERE api_key_id = ? AND created_at >= ?
               UNION ALL
               SELECT cost_micros, images FROM limit_reservations r
               WHERE api_key_id = ? AND started_at >= ? AND ${OPEN_RESERVATION}) AS used`,
        [keyId, since, keyId, since, now],
      ))!,
    async requestTimes(keyId, since, now) {
      const rows = await q.all<{ at: number }>(
        `SELECT created_at AS at FROM usage_records
         WHERE api_key_id = ? AND created_at > ? AND (error_code IS NULL OR error_code NOT IN (${REFUSALS}))
         UNION ALL
         SELECT started_at AS at FROM limit_reservations r
         WHERE api_key_id = ? AND started_at > ? AND ${OPEN_RESERVATION}`,
        [keyId, since, keyId, since, now],
      );
      return rows.map((row) => row.at);
    },
    async hold(reservation, use, now) {
      await q.run(
        `INSERT INTO limit_reservations (request_id, api_key_id, started_at, cost_micros, images, owner, held_until)
         VALUES (?, ?, ?, ?, ?, ?, ${LEASE_CLOCK} + ?)`,
        [
          reservation.requestId,
          reservation.keyId,
          reservation.startedAt,
          use.costMicros,
          use.images,
          reservation.owner,
          now,
          reservation.heldUntil - now,
        ],
      );
    },
    async add(requestId, use) {
      await q.run(
        'UPDATE limit_reservations SET cost_micros = cost_micros + ?, images = images + ? WHERE request_id = ?',
        [use.costMicros, use.images, requestId],
      );
    },
  };
}

export function createUsageLedger(engine: SqlEngine): UsageLedger {
  return {
    ...viewOn(engine),
    decide: (keyId, fn) =>
      engine.transaction(async (tx) => {
        // SQLite's BEGIN IMMEDIATE already holds the one write lock; PostgreSQL locks the key
        // alone (a transaction-scoped advisory lock, released at commit), so keys do not wait on
        // each other.
        if (tx.kind === 'postgres')
          await tx.get('SELECT pg_advisory_xact_lock(hashtext(?))', [keyId]);
        return fn(viewOn(tx));
      }),
    async release(requestId) {
      await engine.run(RELEASE, [requestId]);
    },
    async releaseWithin(tx, requestId) {
      await tx.run(RELEASE, [requestId]);
    },
    async renew(owner, heldUntil, now) {
      await engine.run(
        `UPDATE limit_reservations SET held_until = ${LEASE_CLOCK} + ? WHERE owner = ?`,
        [now, heldUntil - now, owner],
      );
      await engine.run(
        `DELETE FROM limit_reservations WHERE held_until <= ${LEASE_CLOCK} OR EXISTS
           (SELECT 1 FROM usage_records u WHERE u.request_id = limit_reservations.request_id)`,
        [now],
      );
    },
  };
}
