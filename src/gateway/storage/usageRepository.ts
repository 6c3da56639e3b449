import type { TokenUsage } from '../../shared/imageParams';
import type { Db } from './db';

/** One request as the usage log keeps it (spec 2.2), mirroring the usage_records columns. */
export interface UsageRecord {
  id: number;
  requestId: string;
  /** ms since the epoch, when the request started. */
  createdAt: number;
  endpoint: string;
  model: string | null;
  /** As requested. */
  size: string | null;
  /** As measured on the delivered image: differs from `size` after a silent downgrade. */
  deliveredSize: string | null;
  quality: string | null;
  outputFormat: string | null;
  n: number;
  stream: boolean;
  /** HTTP status answered. */
  status: number;
  errorCode: string | null;
  errorMessage: string | null;
  inputTokens: number;
  inputTextTokens: number;
  inputImageTokens: number;
  outputTokens: number;
  outputTextTokens: number;
  outputImageTokens: number;
  totalTokens: number;
  /** Images delivered. */
  images: number;
  latencyMs: number;
  upstreamAccountId: string | null;
  upstreamAccountName: string | null;
  groupName: string | null;
  user: string | null;
  apiKeyId: string | null;
  /** Integer micro-dollars, priced when written: later price edits never rewrite history. */
  costMicros: number;
  /** The price row used, so a cost can be explained later. */
  priceModel: string | null;
  fallbackStep: string | null;
}

/** Everything but the row id. All fields are required so that nothing is forgotten silently. */
export type NewUsageRecord = Omit<UsageRecord, 'id'>;

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
  model?: string;
  endpoint?: string;
  /** An exact HTTP status, or every 2xx/3xx ('success') or every >= 400 ('error'). */
  status?: number | 'success' | 'error';
  /** Only rows up to this row id: pins a read of many pages against rows written meanwhile. */
  throughId?: number;
}

export type UsageGroupBy = 'day' | 'model' | 'key' | 'account';

export interface UsageTotalsQuery {
  since?: number;
  until?: number;
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
}

export interface UsageRepository {
  /** false when a record with this requestId already exists: a request is never recorded twice. */
  insert(record: NewUsageRecord): boolean;
  get(requestId: string): UsageRecord | null;
  /** Newest first. `limit` defaults to 100 and is capped at 1000. */
  list(filter?: UsageFilter & { limit?: number; offset?: number }): UsageRecord[];
  count(filter?: UsageFilter): number;
  totals(query?: UsageTotalsQuery): UsageTotal[];
  /** The newest row id (0 when empty), for `throughId`. */
  lastId(): number;
}

/** Field -> column. The one place the two namings meet. */
const COLUMNS = {
  requestId: 'request_id',
  createdAt: 'created_at',
  endpoint: 'endpoint',
  model: 'model',
  size: 'size',
  deliveredSize: 'delivered_size',
  quality: 'quality',
  outputFormat: 'output_format',
  n: 'n',
  stream: 'stream',
  status: 'status',
  errorCode: 'error_code',
  errorMessage: 'error_message',
  inputTokens: 'input_tokens',
  inputTextTokens: 'input_text_tokens',
  inputImageTokens: 'input_image_tokens',
  outputTokens: 'output_tokens',
  outputTextTokens: 'output_text_tokens',
  outputImageTokens: 'output_image_tokens',
  totalTokens: 'total_tokens',
  images: 'images',
  latencyMs: 'latency_ms',
  upstreamAccountId: 'upstream_account_id',
  upstreamAccountName: 'upstream_account_name',
  groupName: 'group_name',
  user: 'user',
  apiKeyId: 'api_key_id',
  costMicros: 'cost_micros',
  priceModel: 'price_model',
  fallbackStep: 'fallback_step',
} as const satisfies Record<keyof NewUsageRecord, string>;

const FIELDS = Object.keys(COLUMNS) as (keyof NewUsageRecord)[];
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
const INTEGER_FIELDS = [...SUMMED_FIELDS, 'createdAt', 'n', 'status', 'latencyMs'] as const;
const SELECT = `SELECT id, ${FIELDS.map((f) => `${COLUMNS[f]} AS ${f}`).join(', ')} FROM usage_records`;

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

  return {
    insert(record) {
      if (!record.requestId) throw new TypeError('A usage record needs a requestId');
      const params: Record<string, unknown> = { ...record, stream: record.stream ? 1 : 0 };
      // STRICT INTEGER columns reject fractions; a fractional latency must not cost the record.
      for (const f of INTEGER_FIELDS) {
        const value = params[f];
        if (typeof value === 'number') params[f] = Math.round(value);
      }
      return insert.run(pick(params)).changes === 1;
    },

    get(requestId) {
      const row = selectOne.get(requestId) as RawRow | undefined;
      return row ? fromRow(row) : null;
    },

    list(filter = {}) {
      const { where, params } = whereClause(filter);
      const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 100), 0), 1000);
      const offset = Math.max(Math.trunc(filter.offset ?? 0), 0);
      const rows = db
        .prepare(
          `${SELECT} u ${where} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
        )
        .all({ ...params, limit, offset }) as RawRow[];
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
      const { where, params } = whereClause({ since: query.since, until: query.until });
      const group = query.groupBy ? GROUP_EXPRESSIONS[query.groupBy] : null;
      const sums = SUMMED_FIELDS.map((f) => `COALESCE(SUM(u.${COLUMNS[f]}), 0) AS ${f}`).join(', ');
      const order = query.groupBy === 'day' ? 'key ASC' : 'costMicros DESC, requests DESC, key ASC';
      const sql = `
        SELECT ${group ? group.key : 'NULL'} AS key, ${group ? group.label : 'NULL'} AS label,
               COUNT(*) AS requests, COALESCE(SUM(u.status >= 400), 0) AS errors, ${sums}
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

type RawRow = Omit<UsageRecord, 'stream'> & { stream: number };

function fromRow(row: RawRow): UsageRecord {
  return { ...row, stream: row.stream === 1 };
}

/** better-sqlite3 throws on a missing named parameter: an undefined nullable field is NULL. */
function pick(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(FIELDS.map((f) => [f, params[f] ?? null]));
}

function whereClause(filter: UsageFilter): { where: string; params: Record<string, unknown> } {
  const conditions: string[] = [];
  const params: Record<string, unknown> = {};
  const add = (condition: string, name: string, value: unknown) => {
    conditions.push(condition);
    params[name] = value;
  };
  if (filter.since !== undefined) add('u.created_at >= @since', 'since', filter.since);
  if (filter.until !== undefined) add('u.created_at < @until', 'until', filter.until);
  if (filter.apiKeyId !== undefined) add('u.api_key_id = @apiKeyId', 'apiKeyId', filter.apiKeyId);
  if (filter.model !== undefined) add('u.model = @model', 'model', filter.model);
  if (filter.endpoint !== undefined) add('u.endpoint = @endpoint', 'endpoint', filter.endpoint);
  if (filter.throughId !== undefined) add('u.id <= @throughId', 'throughId', filter.throughId);
  if (filter.status === 'success') conditions.push('u.status < 400');
  else if (filter.status === 'error') conditions.push('u.status >= 400');
  else if (filter.status !== undefined) add('u.status = @status', 'status', filter.status);
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}
