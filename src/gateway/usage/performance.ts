import type { EngineKind, SqlEngine, SqlValue } from '../storage/engine';
import { bindNamed } from '../storage/named';

/**
 * Latency percentiles and success rate over time, by key or by account (issue 15, item 4),
 * computed in the database: window functions rank each bucket's latencies, so the gateway never holds
 * more than the answer's rows (at most `limit` of them).
 */
export interface UsagePerformanceQuery {
  groupBy?: 'key' | 'account';
  bucket?: 'hour' | 'day';
  since?: number;
  until?: number;
  apiKeyId?: string;
  accountId?: string;
  /** East positive, as for totals: buckets break at the caller's midnight and hours. */
  utcOffsetMinutes?: number;
  /** The most rows answered. */
  limit: number;
}

export interface UsagePerformanceRow {
  bucket: string;
  key: string | null;
  label: string | null;
  requests: number;
  successes: number;
  successRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

const BUCKETS = {
  day: { sqlite: '%Y-%m-%d', postgres: 'YYYY-MM-DD', ms: 86_400_000 },
  hour: { sqlite: '%Y-%m-%dT%H', postgres: 'YYYY-MM-DD"T"HH24', ms: 3_600_000 },
} as const;

/** A bucket's start (ms) formatted in UTC, in each engine's words. */
function formatBucket(kind: EngineKind, ms: string, bucket: (typeof BUCKETS)['day' | 'hour']) {
  return kind === 'sqlite'
    ? `strftime('${bucket.sqlite}', (${ms}) / 1000, 'unixepoch')`
    : `to_char(to_timestamp((${ms}) / 1000) AT TIME ZONE 'UTC', '${bucket.postgres}')`;
}
/** A group's key, and its label looked up once per group (not once per row). */
const GROUPS = {
  key: {
    key: 'u.api_key_id',
    label: '(SELECT name FROM api_keys WHERE id = c.key)',
    rowLabel: 'NULL',
  },
  // Account names can change; any name the account had in the bucket will do.
  account: { key: 'u.upstream_account_id', label: 'c.label', rowLabel: 'u.upstream_account_name' },
} as const;

/**
 * Nearest-rank percentile p of n sorted values is the value at rank ceil(p * n / 100), which for
 * whole numbers is (p * n + 99) / 100 in integer division.
 */
const rankOf = (percent: number) => `(c.successes * ${percent} + 99) / 100`;

/** Equal, NULL included: SQLite's IS, PostgreSQL's IS NOT DISTINCT FROM. */
function sameIn(kind: EngineKind) {
  return (a: string, b: string) =>
    kind === 'sqlite' ? `${a} IS ${b}` : `${a} IS NOT DISTINCT FROM ${b}`;
}

export async function usagePerformance(
  engine: SqlEngine,
  query: UsagePerformanceQuery,
): Promise<{ rows: UsagePerformanceRow[]; truncated: boolean }> {
  const conditions: string[] = [];
  const params: Record<string, SqlValue> = {
    offsetMs: (query.utcOffsetMinutes ?? 0) * 60_000,
    limit: query.limit + 1,
  };
  const add = (condition: string, name: string, value: SqlValue | undefined) => {
    if (value === undefined) return;
    conditions.push(condition);
    params[name] = value;
  };
  add('u.created_at >= @since', 'since', query.since);
  add('u.created_at < @until', 'until', query.until);
  add('u.api_key_id = @apiKeyId', 'apiKeyId', query.apiKeyId);
  add('u.upstream_account_id = @accountId', 'accountId', query.accountId);
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const group = query.groupBy
    ? GROUPS[query.groupBy]
    : { key: 'NULL', label: 'NULL', rowLabel: 'NULL' };
  const bucket = BUCKETS[query.bucket ?? 'day'];
  const same = sameIn(engine.kind);
  params.bucketMs = bucket.ms;

  // Buckets are whole numbers (time in the caller's offset over the bucket's length), formatted
  // once per row of the answer; the only sort is the ranking of the successful latencies.
  const sql = `
    WITH base AS (
      SELECT CAST((u.created_at + @offsetMs) / @bucketMs AS BIGINT) AS bucket, ${group.key} AS key,
             ${group.rowLabel} AS label, u.latency_ms AS latency,
             CASE WHEN u.status < 400 THEN 1 ELSE 0 END AS ok
      FROM usage_records u
      ${where}
    ),
    counts AS (
      SELECT bucket, key, MAX(label) AS label, COUNT(*) AS requests, SUM(ok) AS successes
      FROM base GROUP BY bucket, key
    ),
    ranked AS (
      SELECT bucket, key, latency,
             ROW_NUMBER() OVER (PARTITION BY bucket, key ORDER BY latency) AS rank
      FROM base WHERE ok = 1
    ),
    percentiles AS (
      SELECT r.bucket, r.key,
             MAX(CASE WHEN r.rank = ${rankOf(50)} THEN r.latency END) AS "p50Ms",
             MAX(CASE WHEN r.rank = ${rankOf(95)} THEN r.latency END) AS "p95Ms",
             MAX(CASE WHEN r.rank = ${rankOf(99)} THEN r.latency END) AS "p99Ms"
      FROM ranked r JOIN counts c ON c.bucket = r.bucket AND ${same('c.key', 'r.key')}
      GROUP BY r.bucket, r.key
    )
    SELECT ${formatBucket(engine.kind, 'c.bucket * @bucketMs', bucket)} AS bucket,
           c.key, ${group.label} AS label, c.requests, c.successes,
           p."p50Ms", p."p95Ms", p."p99Ms"
    FROM counts c LEFT JOIN percentiles p ON p.bucket = c.bucket AND ${same('p.key', 'c.key')}
    ORDER BY c.bucket ASC, c.requests DESC, c.key ASC
    LIMIT @limit`;
  const bound = bindNamed(sql, params);
  const found = await engine.all<Omit<UsagePerformanceRow, 'successRate'>>(bound.sql, bound.values);
  const truncated = found.length > query.limit;
  const rows = (truncated ? found.slice(0, query.limit) : found).map((row) => ({
    ...row,
    p50Ms: row.p50Ms ?? null,
    p95Ms: row.p95Ms ?? null,
    p99Ms: row.p99Ms ?? null,
    successRate: row.requests === 0 ? 0 : row.successes / row.requests,
  }));
  return { rows, truncated };
}
