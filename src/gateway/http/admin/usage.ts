import { Router, type Response } from 'express';
import {
  MAX_PERFORMANCE_ROWS,
  usagePerformanceQuerySchema,
  usageQuerySchema,
  usageTotalsQuerySchema,
  type UsageRecord as UsageView,
} from '../../../shared/admin';
import { formatMicros } from '../../billing/prices';
import type { ImagesRepository } from '../../gallery/repository';
import type { KeysRepository } from '../../keys/repository';
import type {
  UsageCursor,
  UsageFilter,
  UsageRecord,
  UsageRepository,
} from '../../usage/repository';
import type { RejectedCounter } from '../../usage/rejected';
import { parse } from './parse';

export interface UsageAdminDeps {
  usage: UsageRepository;
  keys: KeysRepository;
  /** Requests refused for want of a key (counted in memory, not in the log). */
  rejected: RejectedCounter;
  /** What the gallery kept from each request, shown with its row. */
  images: Pick<ImagesRepository, 'keptFor'>;
}

/** Key id -> name, deleted keys included (their usage still names them). */
export async function keyNames(
  keys: Pick<KeysRepository, 'list'>,
): Promise<(id: string | null) => string | null> {
  const all = await keys.list({ includeDeleted: true });
  const names = new Map(all.map((k) => [k.id, k.name] as const));
  return (id) => (id === null ? null : (names.get(id) ?? null));
}

export function usageView(
  record: UsageRecord,
  nameOf: (id: string | null) => string | null,
): UsageView {
  const { id: _rowId, ...rest } = record;
  return { ...rest, apiKeyName: nameOf(record.apiKeyId) };
}

/** /api/admin/usage: the per-request table, totals for the charts, and the CSV export. */
export function usageAdmin(deps: UsageAdminDeps): Router {
  const router = Router();

  router.get('/usage', async (req, res) => {
    const { limit, offset, ...filter } = usageFilter(parse(usageQuerySchema, req.query));
    const nameOf = await keyNames(deps.keys);
    const records = await deps.usage.list({ ...filter, limit, offset });
    const kept = await deps.images.keptFor(records.map((r) => r.requestId));
    res.json({
      records: records.map((r) => {
        const images = kept.get(r.requestId);
        return {
          ...usageView(r, nameOf),
          keptImageIds: images?.imageIds ?? [],
          prompt: images?.prompt ?? null,
        };
      }),
      total: await deps.usage.count(filter),
    });
  });

  router.get('/usage/totals', async (req, res) => {
    const query = usageFilter(parse(usageTotalsQuerySchema, req.query));
    res.json({ rows: await deps.usage.totals(query) });
  });

  router.get('/usage/performance', async (req, res) => {
    const query = usageFilter(parse(usagePerformanceQuerySchema, req.query));
    res.json(await deps.usage.performance({ ...query, limit: MAX_PERFORMANCE_ROWS }));
  });

  router.get('/usage/rejected', (_req, res) => {
    res.json(deps.rejected.snapshot());
  });

  router.get('/usage.csv', async (req, res) => {
    const query = usageFilter(parse(usageQuerySchema, req.query));
    const { limit: _limit, offset: _offset, ...filter } = query;
    await writeCsv(res, deps, filter);
  });

  return router;
}

/** The API's `account` is the repository's `accountId` (the upstream account of a row). */
function usageFilter<Q extends { account?: string }>(
  query: Q,
): Omit<Q, 'account'> & { accountId?: string } {
  const { account, ...rest } = query;
  return account === undefined ? rest : { ...rest, accountId: account };
}

const CSV_COLUMNS: Array<[string, (r: UsageView) => string | number | boolean | null]> = [
  ['created_at', (r) => new Date(r.createdAt).toISOString()],
  ['request_id', (r) => r.requestId],
  ['endpoint', (r) => r.endpoint],
  ['model', (r) => r.model],
  ['size', (r) => r.size],
  ['delivered_size', (r) => r.deliveredSize],
  ['quality', (r) => r.quality],
  ['delivered_quality', (r) => r.deliveredQuality],
  ['output_format', (r) => r.outputFormat],
  ['n', (r) => r.n],
  ['stream', (r) => r.stream],
  ['status', (r) => r.status],
  ['error_code', (r) => r.errorCode],
  ['error_message', (r) => r.errorMessage],
  ['input_tokens', (r) => r.inputTokens],
  ['input_text_tokens', (r) => r.inputTextTokens],
  ['input_image_tokens', (r) => r.inputImageTokens],
  ['output_tokens', (r) => r.outputTokens],
  ['output_text_tokens', (r) => r.outputTextTokens],
  ['output_image_tokens', (r) => r.outputImageTokens],
  ['total_tokens', (r) => r.totalTokens],
  ['images', (r) => r.images],
  ['latency_ms', (r) => r.latencyMs],
  ['account_id', (r) => r.upstreamAccountId],
  ['account_name', (r) => r.upstreamAccountName],
  ['upstream_request_id', (r) => r.upstreamRequestId],
  ['group', (r) => r.groupName],
  ['user', (r) => r.user],
  ['api_key_id', (r) => r.apiKeyId],
  ['api_key_name', (r) => r.apiKeyName],
  ['cost_usd', (r) => formatMicros(r.costMicros)],
  ['cost_micros', (r) => r.costMicros],
  ['fallback_step', (r) => r.fallbackStep],
  ['estimated', (r) => r.estimated],
];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled.
 * Text a spreadsheet would run as a formula (=, +, -, @ first) gets a leading apostrophe.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const PAGE = 1000;

/** Streams page by page with backpressure; rows written during the export are left out. */
async function writeCsv(res: Response, deps: UsageAdminDeps, filter: UsageFilter): Promise<void> {
  const pinned = { ...filter, throughId: await deps.usage.lastId() };
  const nameOf = await keyNames(deps.keys);
  res.setHeader('content-type', 'text/csv; charset=utf-8');
  res.setHeader('content-disposition', 'attachment; filename="atelier-usage.csv"');
  res.setHeader('cache-control', 'no-store');
  const write = (text: string) =>
    res.write(text)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          // A caller that leaves mid-download must not leave this waiting for a drain forever.
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.once('drain', done);
          res.once('close', done);
        });
  await write(`${CSV_COLUMNS.map(([name]) => name).join(',')}\r\n`);
  let after: UsageCursor | undefined;
  while (!res.destroyed) {
    const rows = await deps.usage.list({ ...pinned, limit: PAGE, after });
    const lines = rows.map((r) => {
      const record = usageView(r, nameOf);
      return `${CSV_COLUMNS.map(([, get]) => csvField(get(record))).join(',')}\r\n`;
    });
    if (lines.length > 0) await write(lines.join(''));
    if (rows.length < PAGE) break;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
    // A page is a few milliseconds of synchronous work: between pages, every other request
    // gets its turn (a write that did not fill the socket would otherwise never yield).
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  res.end();
}
