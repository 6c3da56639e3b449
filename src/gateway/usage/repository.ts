import type { TokenUsage } from '../../shared/imageParams';
import {
  CLIENT_CANCELLED,
  CLIENT_CLOSED,
  INTERRUPTED,
  type StoredUsage,
} from '../../shared/usageRecord';
import type { Db } from '../storage/db';
import {
  usagePerformance,
  type UsagePerformanceQuery,
  type UsagePerformanceRow,
} from './performance';
import { COLUMNS, FIELDS, SELECT_FIELDS, fromRow, toParams } from './row';

/** One request as the usage log keeps it (spec 2.2): the fields of shared/usageRecord.ts. */
export interface UsageRecord extends StoredUsage {
  id: number;
}

/** Everything but the row id. All fields are required so that nothing is forgotten silently. */
export type NewUsageRecord = StoredUsage;

/**
 * A request dispatched upstream and not yet finished: what was known when it last went out.
 * A crash leaves these behind; the next start turns them into records (usage/interrupted.ts).
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
  /** false when a record with this requestId already exists: a request is never recorded twice. */
  insert(record: NewUsageRecord): boolean;
  get(requestId: string): UsageRecord | null;
  /** Newest first. `limit` defaults to 100 and is capped at 1000. */
  list(
    filter?: UsageFilter & { limit?: number; offset?: number; after?: UsageCursor },
  ): UsageRecord[];
  count(filter?: UsageFilter): number;
  totals(query?: UsageTotalsQuery): UsageTotal[];
  /** Latency percentiles and success rate per time bucket, by key or account (SQL-side). */
  performance(query: UsagePerformanceQuery): {
    rows: UsagePerformanceRow[];
    truncated: boolean;
  };
  /** The newest row id (0 when empty), for `throughId`. */
  lastId(): number;
  /** Writes or replaces the request's pending row. */
  savePending(pending: PendingUsage): void;
  /**
   * The request's final record and the end of its pending row, in one transaction: a crash
   * leaves one or the other, never both and never neither. false when it was already recorded.
   */
  complete(record: NewUsageRecord): boolean;
  listPending(): PendingUsage[];
  /** Pending rows still waiting (the soak's invariant: none once the gateway is idle). */
  countPending(): number;
  /**
   * A committed write that leaves nothing behind: throws as a usage row would (disk full,
   * read-only), so an unwritable log knows when it takes writes again.
   */
  probe(): void;
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

const GROUP_EXPRESSIONS: Record<UsageGroupBy, { key: string; label: string }> = {
  // created_at is in ms; 'unixepoch' wants seconds.
  day: {
    key: `strftime('%Y-%m-%d', (u.created_at + @offsetMs) / 1000, 'unixepoch')`,
    label: `strftime('%Y-%m-%d', (u.created_at + @offsetMs) / 1000, 'unixepoch')`,
  },
  model: { key: 'u.model', label: 'u.model' },
  key: { key: 'u.api_key_id', label: 'MAX(k.name)' },
  // Account names can change; any name the account had in the period will do as a label.
  account: { key: 'u.upstream_account_id', label: 'MAX(u.upstream_account_name)' },
};

export function createUsageRepository(db: Db): UsageRepository {
  const insert = db.prepare(
    `INSERT INTO usage_records (${FIELDS.map((f) => COLUMNS[f]).join(', ')})
     VALUES (${FIELDS.map((f) => `@${f}`).join(', ')})
     ON CONFLICT (request_id) DO NOTHING`,
  );
  const selectOne = db.prepare(`${SELECT} WHERE request_id = ?`);
  const selectLastId = db.prepare('SELECT COALESCE(MAX(id), 0) FROM usage_records').pluck();
  const upsertPending = db.prepare(
    `INSERT INTO usage_pending (request_id, record, attempts, updated_at, owner_pid, owner_run)
     VALUES (@requestId, @record, @attempts, @updatedAt, @ownerPid, @ownerRun)
     ON CONFLICT (request_id) DO UPDATE SET record = excluded.record,
       attempts = excluded.attempts, updated_at = excluded.updated_at`,
  );
  const deletePending = db.prepare('DELETE FROM usage_pending WHERE request_id = ?');
  const selectPending = db.prepare(
    `SELECT request_id AS requestId, record, attempts, updated_at AS updatedAt,
            owner_pid AS ownerPid, owner_run AS ownerRun
     FROM usage_pending ORDER BY updated_at`,
  );
  const countPending = db.prepare('SELECT COUNT(*) FROM usage_pending').pluck();
  const probeRow = db.prepare(
    `INSERT INTO usage_pending (request_id, record, attempts, updated_at, owner_pid, owner_run)
     VALUES ('~probe', ?, 0, 0, 0, '')`,
  );
  const probe = db.transaction(() => {
    // 64 KB: more than the write-ahead log's slack after a failed write (a few pages), so it
    // succeeds only when the disk really has room again. Removed in the same transaction.
    probeRow.run(JSON.stringify('x'.repeat(65_536)));
    deletePending.run('~probe');
  });

  const insertRecord = (record: NewUsageRecord) => {
    if (!record.requestId) throw new TypeError('A usage record needs a requestId');
    return insert.run(toParams(record)).changes === 1;
  };
  const complete = db.transaction((record: NewUsageRecord) => {
    const inserted = insertRecord(record);
    deletePending.run(record.requestId);
    return inserted;
  });

  return {
    insert: insertRecord,
    complete: (record) => complete.immediate(record),

    savePending(pending) {
      upsertPending.run({ ...pending, record: JSON.stringify(pending.record) });
    },

    listPending() {
      const rows = selectPending.all() as Array<Omit<PendingUsage, 'record'> & { record: string }>;
      return rows.map((row) => ({ ...row, record: JSON.parse(row.record) as NewUsageRecord }));
    },

    countPending: () => countPending.get() as number,
    probe: () => probe.immediate(),

    get(requestId) {
      const row = selectOne.get(requestId) as UsageRecord | undefined;
      return row ? fromRow(row) : null;
    },

    list(filter = {}) {
      const { where, params } = whereClause(filter, filter.after);
      const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 100), 0), 1000);
      const offset = Math.max(Math.trunc(filter.offset ?? 0), 0);
      const rows = db
        .prepare(
          `${SELECT} u ${where} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
        )
        .all({ ...params, limit, offset }) as UsageRecord[];
      return rows.map(fromRow);
    },

    count(filter = {}) {
      const { where, params } = whereClause(filter);
      return db
        .prepare(`SELECT COUNT(*) FROM usage_records u ${where}`)
        .pluck()
        .get(params) as number;
    },

    totals(query = {}) {
      const { since, until, apiKeyId, accountId } = query;
      const { where, params } = whereClause({ since, until, apiKeyId, accountId });
      const group = query.groupBy ? GROUP_EXPRESSIONS[query.groupBy] : null;
      const sums = SUMMED_FIELDS.map((f) => `COALESCE(SUM(u.${COLUMNS[f]}), 0) AS ${f}`).join(', ');
      const order = query.groupBy === 'day' ? 'key ASC' : 'costMicros DESC, requests DESC, key ASC';
      const sql = `
        SELECT ${group ? group.key : 'NULL'} AS key, ${group ? group.label : 'NULL'} AS label,
               COUNT(*) AS requests, COALESCE(SUM(${FAILED}), 0) AS errors,
               COALESCE(SUM(${CANCELLED}), 0) AS cancelled, ${sums}
        FROM usage_records u LEFT JOIN api_keys k ON k.id = u.api_key_id
        ${where}
        ${group ? `GROUP BY 1 ORDER BY ${order}` : ''}`;
      const bind =
        query.groupBy === 'day'
          ? { ...params, offsetMs: (query.utcOffsetMinutes ?? 0) * 60_000 }
          : params;
      return db.prepare(sql).all(bind) as UsageTotal[];
    },

    lastId: () => selectLastId.get() as number,
    performance: (query) => usagePerformance(db, query),
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

function whereClause(
  filter: UsageFilter,
  after?: UsageCursor,
): { where: string; params: Record<string, unknown> } {
  const conditions: string[] = [];
  const params: Record<string, unknown> = {};
  const add = (condition: string, name: string, value: unknown) => {
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
