import type { TokenUsage } from '../../shared/imageParams';
import {
  CLIENT_CANCELLED,
  CLIENT_CLOSED,
  INTERRUPTED,
  type StoredUsage,
} from '../../shared/usageRecord';
import {
  LEASE_CLOCK,
  type EngineKind,
  type SqlEngine,
  type SqlQueries,
  type SqlValue,
} from '../storage/engine';
import { bindNamed } from '../storage/named';
import {
  usagePerformance,
  type UsagePerformanceQuery,
  type UsagePerformanceRow,
} from './performance';
import { COLUMN_SQL, FIELDS, SELECT_FIELDS, fromRow, toValues } from './row';

/** One request as the usage log keeps it (spec 2.2): the fields of shared/usageRecord.ts. */
export interface UsageRecord extends StoredUsage {
  id: number;
}

/** Everything but the row id. All fields are required so that nothing is forgotten silently. */
export type NewUsageRecord = StoredUsage;

/** Statements another part writes in a usage record's own transaction. */
export type InCommit = (tx: SqlQueries) => Promise<void>;

/**
 * A request dispatched upstream and not yet finished: what was known when it last went out.
 * A crash leaves these behind; the next start (SQLite) or another instance once the lease has
 * ended (PostgreSQL) turns them into records (usage/interrupted.ts).
 */
export interface PendingUsage {
  requestId: string;
  /** The record as it would read had the request ended then (its status is not meaningful). */
  record: NewUsageRecord;
  /** Upstream calls made so far (retries, failovers, ladder steps and the n images all count). */
  attempts: number;
  updatedAt: number;
  /** The gateway process and run that wrote it: a live one's rows are not taken over. */
  ownerPid: number;
  ownerRun: string;
  /**
   * Until when (ms) its run vouches for it: the run renews the lease while it lives, and once the
   * lease has ended another instance may record the request as interrupted. Written as the
   * caller's clock says (`updatedAt` + the lease); the database keeps it as long from the lease
   * clock's now (storage/engine.ts LEASE_CLOCK), so on PostgreSQL it reads back by that clock.
   */
  leaseUntil: number;
}

type TokenFields =
  | 'inputTokens'
  | 'inputTextTokens'
  | 'inputImageTokens'
  | 'outputTokens'
  | 'outputTextTokens'
  | 'outputImageTokens'
  | 'totalTokens';

export interface UsageFilter {
  /** Inclusive, ms. */
  since?: number;
  /** Exclusive, ms. */
  until?: number;
  apiKeyId?: string;
  /** The upstream account that served it (`simulator` for the built-in simulator). */
  accountId?: string;
  model?: string;
  endpoint?: string;
  /**
   * An exact HTTP status, or the delivered ('success'), the failed ('error': >= 400 but a
   * delivered 499 and the caller's own cancels) or the caller's cancels ('cancelled').
   */
  status?: number | 'success' | 'error' | 'cancelled';
  /** Only rows up to this row id: pins a read of many pages against rows written meanwhile. */
  throughId?: number;
}

/**
 * Where the previous page of a newest-first read ended: the next page starts after this row.
 * Keyset paging costs the same for the thousandth page as for the first; an OFFSET walks and
 * drops every row before it, so an export of n rows by offset costs O(n^2 / page).
 */
export interface UsageCursor {
  createdAt: number;
  id: number;
}

export type UsageGroupBy = 'day' | 'model' | 'key' | 'account';

export interface UsageTotalsQuery {
  since?: number;
  until?: number;
  apiKeyId?: string;
  accountId?: string;
  /** Absent: one row over everything. */
  groupBy?: UsageGroupBy;
  /**
   * For `day`: the caller's offset from UTC in minutes (east positive, i.e.
   * `-new Date().getTimezoneOffset()`), so days break at the user's midnight. Default 0 (UTC).
   */
  utcOffsetMinutes?: number;
}

export interface UsageTotal extends Pick<UsageRecord, TokenFields | 'images' | 'costMicros'> {
  /** `YYYY-MM-DD`, model, api key id or account id; null for rows without one (or no groupBy). */
  key: string | null;
  /** Human name for `key`: the key's or account's name; the key itself for day and model. */
  label: string | null;
  requests: number;
  errors: number;
  /** The callers' own cancels (no image made): not counted in `errors`. */
  cancelled: number;
}

export interface UsageRepository {
  readonly kind: EngineKind;
  /** false when a record with this requestId already exists: a request is never recorded twice. */
  insert(record: NewUsageRecord): Promise<boolean>;
  get(requestId: string): Promise<UsageRecord | null>;
  /** Newest first. `limit` defaults to 100 and is capped at 1000. */
  list(
    filter?: UsageFilter & { limit?: number; offset?: number; after?: UsageCursor },
  ): Promise<UsageRecord[]>;
  count(filter?: UsageFilter): Promise<number>;
  totals(query?: UsageTotalsQuery): Promise<UsageTotal[]>;
  /** Latency percentiles and success rate per time bucket, by key or account (SQL-side). */
  performance(query: UsagePerformanceQuery): Promise<{
    rows: UsagePerformanceRow[];
    truncated: boolean;
  }>;
  /** The newest row id (0 when empty), for `throughId`. */
  lastId(): Promise<number>;
  /** Writes or replaces the request's pending row (its lease included). */
  savePending(pending: PendingUsage): Promise<void>;
  /**
   * Extends the lease of every pending row of this run to `leaseUntil - now` from the lease
   * clock's now (`now` is the caller's clock); returns how many it holds.
   */
  renewLeases(ownerRun: string, leaseUntil: number, now: number): Promise<number>;
  /**
   * The request's final record and the end of its pending row, in one transaction: a crash
   * leaves one or the other, never both and never neither. false when it was already recorded.
   * `alsoInCommit` runs in the same transaction (the end of the key's limits reservation).
   */
  complete(record: NewUsageRecord, alsoInCommit?: InCommit | null): Promise<boolean>;
  /**
   * Records another run's pending row as `record` and ends it, in one transaction, only if the
   * row is still there and (with `leaseJudgedAt`, the caller's clock) its lease has ended by the
   * lease clock: an owner that renewed meanwhile keeps its row, and of two instances reconciling
   * one row only one records it.
   */
  reconcile(requestId: string, record: NewUsageRecord, leaseJudgedAt?: number): Promise<boolean>;
  listPending(): Promise<PendingUsage[]>;
  /** The pending rows whose lease has ended by the lease clock (`now` is the caller's clock). */
  listLapsed(now: number): Promise<PendingUsage[]>;
  /** Pending rows still waiting (the soak's invariant: none once the gateway is idle). */
  countPending(): Promise<number>;
  /**
   * A committed write that leaves nothing behind: throws as a usage row would (disk full,
   * read-only), so an unwritable log knows when it takes writes again.
   */
  probe(): Promise<void>;
}

const TOKEN_FIELDS = [
  'inputTokens',
  'inputTextTokens',
  'inputImageTokens',
  'outputTokens',
  'outputTextTokens',
  'outputImageTokens',
  'totalTokens',
] as const satisfies readonly TokenFields[];
const SUMMED_FIELDS = [...TOKEN_FIELDS, 'images', 'costMicros'] as const;
const SELECT = `SELECT ${SELECT_FIELDS} FROM usage_records`;

/** A day as `YYYY-MM-DD` from milliseconds plus the caller's offset, in each engine's words. */
const DAY_OF: Record<EngineKind, (ms: string) => string> = {
  // 'unixepoch' wants seconds.
  sqlite: (ms) => `strftime('%Y-%m-%d', (${ms}) / 1000, 'unixepoch')`,
  postgres: (ms) => `to_char(to_timestamp((${ms}) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
};

/** The group's key and label; a null label is the key itself (days and models). */
function groupExpression(kind: EngineKind, groupBy: UsageGroupBy): { key: string; label: string } {
  switch (groupBy) {
    case 'day':
      return { key: DAY_OF[kind]('u.created_at + @offsetMs'), label: 'NULL' };
    case 'model':
      return { key: 'u.model', label: 'NULL' };
    case 'key':
      return { key: 'u.api_key_id', label: 'MAX(k.name)' };
    case 'account':
      // Account names can change; any name the account had in the period will do as a label.
      return { key: 'u.upstream_account_id', label: 'MAX(u.upstream_account_name)' };
  }
}

const INSERT = `INSERT INTO usage_records (${FIELDS.map((f) => COLUMN_SQL[f]).join(', ')})
  VALUES (${FIELDS.map(() => '?').join(', ')})
  ON CONFLICT (request_id) DO NOTHING`;
const UPSERT_PENDING = `INSERT INTO usage_pending
    (request_id, record, attempts, updated_at, owner_pid, owner_run, lease_until)
  VALUES (?, ?, ?, ?, ?, ?, ${LEASE_CLOCK} + ?)
  ON CONFLICT (request_id) DO UPDATE SET record = excluded.record,
    attempts = excluded.attempts, updated_at = excluded.updated_at,
    owner_pid = excluded.owner_pid, owner_run = excluded.owner_run,
    lease_until = excluded.lease_until`;
const DELETE_PENDING = 'DELETE FROM usage_pending WHERE request_id = ?';
const SELECT_PENDING = `SELECT request_id AS "requestId", record, attempts, updated_at AS "updatedAt",
    owner_pid AS "ownerPid", owner_run AS "ownerRun", lease_until AS "leaseUntil"
  FROM usage_pending WHERE request_id <> '~probe'`;
const PENDING_ORDER = 'ORDER BY updated_at, request_id';

export function createUsageRepository(engine: SqlEngine): UsageRepository {
  const insertIn = async (db: SqlQueries, record: NewUsageRecord) => {
    if (!record.requestId) throw new TypeError('A usage record needs a requestId');
    return (await db.run(INSERT, toValues(record))).changes === 1;
  };
  const readPending = async (sql: string, params: SqlValue[]): Promise<PendingUsage[]> => {
    const rows = await engine.all<Omit<PendingUsage, 'record'> & { record: string }>(sql, params);
    return rows.map((row) => ({ ...row, record: JSON.parse(row.record) as NewUsageRecord }));
  };
  const all = async <T>(sql: string, params: Record<string, SqlValue>) => {
    const bound = bindNamed(sql, params);
    return engine.all<T>(bound.sql, bound.values);
  };

  return {
    kind: engine.kind,
    insert: (record) => insertIn(engine, record),
    complete: (record, alsoInCommit) =>
      engine.transaction(async (tx) => {
        const inserted = await insertIn(tx, record);
        await tx.run(DELETE_PENDING, [record.requestId]);
        if (alsoInCommit) await alsoInCommit(tx);
        return inserted;
      }),

    reconcile: (requestId, record, leaseJudgedAt) =>
      engine.transaction(async (tx) => {
        const ended =
          leaseJudgedAt === undefined
            ? await tx.run(DELETE_PENDING, [requestId])
            : await tx.run(`${DELETE_PENDING} AND lease_until <= ${LEASE_CLOCK}`, [
                requestId,
                leaseJudgedAt,
              ]);
        return ended.changes === 1 && (await insertIn(tx, record));
      }),

    async savePending(pending) {
      await engine.run(UPSERT_PENDING, [
        pending.requestId,
        JSON.stringify(pending.record),
        pending.attempts,
        pending.updatedAt,
        pending.ownerPid,
        pending.ownerRun,
        pending.updatedAt,
        pending.leaseUntil - pending.updatedAt,
      ]);
    },

    async renewLeases(ownerRun, leaseUntil, now) {
      const renewed = await engine.run(
        `UPDATE usage_pending SET lease_until = ${LEASE_CLOCK} + ? WHERE owner_run = ?`,
        [now, leaseUntil - now, ownerRun],
      );
      return renewed.changes;
    },

    listPending: () => readPending(`${SELECT_PENDING} ${PENDING_ORDER}`, []),
    listLapsed: (now) =>
      readPending(`${SELECT_PENDING} AND lease_until <= ${LEASE_CLOCK} ${PENDING_ORDER}`, [now]),

    async countPending() {
      const row = await engine.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM usage_pending WHERE request_id <> '~probe'",
      );
      return row?.n ?? 0;
    },

    probe: () =>
      engine.transaction(async (tx) => {
        // 64 KB: more than the write-ahead log's slack after a failed write (a few pages), so it
        // succeeds only when the disk really has room again. Removed in the same transaction.
        await tx.run(
          `INSERT INTO usage_pending
             (request_id, record, attempts, updated_at, owner_pid, owner_run, lease_until)
           VALUES ('~probe', ?, 0, 0, 0, '', 0)`,
          [JSON.stringify('x'.repeat(65_536))],
        );
        await tx.run(DELETE_PENDING, ['~probe']);
      }),

    async get(requestId) {
      const row = await engine.get<UsageRecord>(`${SELECT} WHERE request_id = ?`, [requestId]);
      return row ? fromRow(row) : null;
    },

    async list(filter = {}) {
      const { where, params } = whereClause(filter, filter.after);
      const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 100), 0), 1000);
      const offset = Math.max(Math.trunc(filter.offset ?? 0), 0);
      const rows = await all<UsageRecord>(
        `${SELECT} u ${where} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
        { ...params, limit, offset },
      );
      return rows.map(fromRow);
    },

    async count(filter = {}) {
      const { where, params } = whereClause(filter);
      const [row] = await all<{ n: number }>(
        `SELECT COUNT(*) AS n FROM usage_records u ${where}`,
        params,
      );
      return row?.n ?? 0;
    },

    async totals(query = {}) {
      const { since, until, apiKeyId, accountId } = query;
      const { where, params } = whereClause({ since, until, apiKeyId, accountId });
      const group = query.groupBy ? groupExpression(engine.kind, query.groupBy) : null;
      const sums = SUMMED_FIELDS.map((f) => `COALESCE(SUM(u.${COLUMN_SQL[f]}), 0) AS "${f}"`).join(
        ', ',
      );
      const order =
        query.groupBy === 'day' ? 'key ASC' : '"costMicros" DESC, requests DESC, key ASC';
      const sql = `
        SELECT ${group ? group.key : 'NULL'} AS key, ${group ? group.label : 'NULL'} AS label,
               COUNT(*) AS requests, ${countOf(FAILED)} AS errors,
               ${countOf(CANCELLED)} AS cancelled, ${sums}
        FROM usage_records u LEFT JOIN api_keys k ON k.id = u.api_key_id
        ${where}
        ${group ? `GROUP BY 1 ORDER BY ${order}` : ''}`;
      const bind =
        query.groupBy === 'day'
          ? { ...params, offsetMs: (query.utcOffsetMinutes ?? 0) * 60_000 }
          : params;
      const rows = await all<UsageTotal>(sql, bind);
      return group?.label === 'NULL' ? rows.map((row) => ({ ...row, label: row.key })) : rows;
    },

    async lastId() {
      const row = await engine.get<{ id: number }>(
        'SELECT COALESCE(MAX(id), 0) AS id FROM usage_records',
      );
      return row?.id ?? 0;
    },
    performance: (query) => usagePerformance(engine, query),
  };
}

/** The token columns of a record, from a TokenUsage (normaliseUsage's output). */
export function usageTokenFields(usage: TokenUsage): Pick<NewUsageRecord, TokenFields> {
  return {
    inputTokens: usage.input_tokens,
    inputTextTokens: usage.input_tokens_details.text_tokens,
    inputImageTokens: usage.input_tokens_details.image_tokens,
    outputTokens: usage.output_tokens,
    outputTextTokens: usage.output_tokens_details.text_tokens,
    outputImageTokens: usage.output_tokens_details.image_tokens,
    totalTokens: usage.total_tokens,
  };
}

/**
 * deliveredDespiteLeaving (shared/usageRecord.ts) in SQL: a caller that left after its image was
 * made is not a failure, in the totals' error count and the status filter as in the list.
 */
const DELIVERED_DESPITE_LEAVING = `(u.status = ${CLIENT_CLOSED} AND u.images > 0 AND COALESCE(u.error_code, '') <> '${INTERRUPTED}')`;
/** cancelledByCaller in SQL: the caller's own Cancel before any image is not a failure either. */
const CANCELLED = `(u.status = ${CLIENT_CLOSED} AND u.images = 0 AND COALESCE(u.error_code, '') = '${CLIENT_CANCELLED}')`;
const FAILED = `(u.status >= 400 AND NOT ${DELIVERED_DESPITE_LEAVING} AND NOT ${CANCELLED})`;

/** How many rows meet a condition (PostgreSQL sums no booleans). */
const countOf = (condition: string) => `COALESCE(SUM(CASE WHEN ${condition} THEN 1 ELSE 0 END), 0)`;

function whereClause(
  filter: UsageFilter,
  after?: UsageCursor,
): { where: string; params: Record<string, SqlValue> } {
  const conditions: string[] = [];
  const params: Record<string, SqlValue> = {};
  const add = (condition: string, name: string, value: SqlValue) => {
    conditions.push(condition);
    params[name] = value;
  };
  if (after) {
    // The range on created_at lets the index seek; the OR breaks ties within one millisecond.
    conditions.push(
      'u.created_at <= @afterCreatedAt AND (u.created_at < @afterCreatedAt OR u.id < @afterId)',
    );
    params.afterCreatedAt = after.createdAt;
    params.afterId = after.id;
  }
  if (filter.since !== undefined) add('u.created_at >= @since', 'since', filter.since);
  if (filter.until !== undefined) add('u.created_at < @until', 'until', filter.until);
  if (filter.apiKeyId !== undefined) add('u.api_key_id = @apiKeyId', 'apiKeyId', filter.apiKeyId);
  if (filter.accountId !== undefined)
    add('u.upstream_account_id = @accountId', 'accountId', filter.accountId);
  if (filter.model !== undefined) add('u.model = @model', 'model', filter.model);
  if (filter.endpoint !== undefined) add('u.endpoint = @endpoint', 'endpoint', filter.endpoint);
  if (filter.throughId !== undefined) add('u.id <= @throughId', 'throughId', filter.throughId);
  if (filter.status === 'success') conditions.push(`NOT ${FAILED} AND NOT ${CANCELLED}`);
  else if (filter.status === 'error') conditions.push(FAILED);
  else if (filter.status === 'cancelled') conditions.push(CANCELLED);
  else if (filter.status !== undefined) add('u.status = @status', 'status', filter.status);
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}
