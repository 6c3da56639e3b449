import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AccountResponse,
  UsageListResponse,
  UsagePerformanceResponse,
  UsagePerformanceRow,
  UsageTotalsResponse,
} from '../../src/shared/admin';
import { createUsageRepository } from '../../src/gateway/usage/repository';
import { usagePerformance } from '../../src/gateway/usage/performance';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import {
  startTestGateway,
  studioLogin,
  usageRow,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

/**
 * Issue 15, item 4: the account filter of the usage API and the latency/success aggregates, over
 * real sockets against a gateway writing a real SQLite file.
 */
let t: TestGateway;
let studio: StudioClient;
let keyB: { key: string; id: string };
let accountId: string;
const requestIds: Record<'simulator' | 'account' | 'refused', string[]> = {
  simulator: [],
  account: [],
  refused: [],
};

async function generate(key: string, body: Record<string, unknown> = {}) {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt: 'a kite', quality: 'low', ...body }),
  });
  await res.arrayBuffer();
  const requestId = res.headers.get('x-request-id')!;
  await usageRow(t, requestId);
  return { status: res.status, requestId };
}

/** Nearest rank, the definition the endpoint documents. */
function nearestRank(values: number[], percent: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((percent / 100) * sorted.length) - 1]!;
}

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
  keyB = await t.newKey('key-b');
  // Before any account is added the built-in simulator serves ('simulator').
  for (let i = 0; i < 2; i++) requestIds.simulator.push((await generate(t.key)).requestId);
  const { account } = await studio.json<AccountResponse>('/api/admin/accounts', {
    method: 'POST',
    body: { kind: 'simulator', name: 'sim-perf', tier: 'pro', capacity: 4 },
  });
  accountId = account.id;
  for (let i = 0; i < 3; i++) {
    const made = await generate(keyB.key);
    expect(made.status).toBe(200);
    requestIds.account.push(made.requestId);
  }
  const refused = await generate(keyB.key, { quality: 'ultra' });
  expect(refused.status).toBe(400);
  requestIds.refused.push(refused.requestId);
});
afterAll(async () => {
  await t.close();
});

describe('the account filter', () => {
  it('narrows the request list, the CSV and the totals to one upstream account', async () => {
    const served = await studio.json<UsageListResponse>(`/api/admin/usage?account=${accountId}`);
    expect(served.total).toBe(3);
    expect(served.records.map((r) => r.requestId).sort()).toEqual([...requestIds.account].sort());
    expect(served.records.every((r) => r.upstreamAccountId === accountId)).toBe(true);

    const simulator = await studio.json<UsageListResponse>('/api/admin/usage?account=simulator');
    expect(simulator.records.map((r) => r.requestId).sort()).toEqual(
      [...requestIds.simulator].sort(),
    );
    // With another filter: key B's requests through that account.
    const both = await studio.json<UsageListResponse>(
      `/api/admin/usage?account=${accountId}&apiKeyId=${keyB.id}`,
    );
    expect(both.total).toBe(3);

    const csv = await (await studio.fetch(`/api/admin/usage.csv?account=${accountId}`)).text();
    const lines = csv.trim().split('\r\n');
    expect(lines).toHaveLength(1 + 3);
    for (const id of requestIds.account) expect(csv).toContain(id);

    const byKey = await studio.json<UsageTotalsResponse>(
      `/api/admin/usage/totals?groupBy=key&account=${accountId}`,
    );
    expect(byKey.rows).toHaveLength(1);
    expect(byKey.rows[0]).toMatchObject({ key: keyB.id, label: 'key-b', requests: 3, errors: 0 });

    const none = await studio.json<UsageListResponse>('/api/admin/usage?account=no-such-account');
    expect(none).toEqual({ records: [], total: 0 });
  });

  it('refuses a malformed filter, naming it', async () => {
    const res = await studio.fetch(`/api/admin/usage?account=${'x'.repeat(201)}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('account');
  });
});

describe('latency percentiles and success rate over time', () => {
  const performance = (query: string) =>
    studio.json<UsagePerformanceResponse>(`/api/admin/usage/performance?${query}`);
  const latencies = (ids: string[]) =>
    ids.map(
      (id) =>
        t.db
          .prepare('SELECT latency_ms FROM usage_records WHERE request_id = ?')
          .pluck()
          .get(id) as number,
    );

  it('by key: requests, successes and nearest-rank percentiles of the successful requests', async () => {
    const { rows, truncated } = await performance('groupBy=key&bucket=day');
    expect(truncated).toBe(false);
    const b = rows.find((r) => r.key === keyB.id)!;
    const ok = latencies(requestIds.account);
    expect(b).toMatchObject({
      label: 'key-b',
      requests: 4,
      successes: 3,
      successRate: 0.75,
      p50Ms: nearestRank(ok, 50),
      p95Ms: nearestRank(ok, 95),
      p99Ms: nearestRank(ok, 99),
    });
    expect(b.bucket).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const a = rows.find((r) => r.key !== keyB.id && r.requests === 2)!;
    expect(a).toMatchObject({ successes: 2, successRate: 1, label: 'test' });
  });

  it('by account, per hour, with the account filter', async () => {
    const { rows } = await performance(`groupBy=account&bucket=hour&account=${accountId}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      key: accountId,
      label: 'sim-perf',
      requests: 3,
      successRate: 1,
    });
    expect(rows[0]!.bucket).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}$/);
  });

  it('computes exact percentiles over a seeded history of 1,000 requests across two days', async () => {
    // History as an earlier run of the gateway left it in the same SQLite file: one key, one
    // account, latencies 1..500 ms on each of two UTC days, every tenth of day two failed.
    const repo = createUsageRepository(sqliteEngine(t.db));
    const template = (await repo.get(requestIds.account[0]!))!;
    const { id: _id, ...record } = template;
    const day1 = Date.UTC(2025, 0, 10, 12);
    const day2 = Date.UTC(2025, 0, 11, 12);
    // One transaction on the gateway's own connection (nothing else writes meanwhile).
    t.db.exec('BEGIN');
    for (let i = 1; i <= 500; i++) {
      for (const [day, at] of [
        [1, day1],
        [2, day2],
      ] as const) {
        const failed = day === 2 && i % 10 === 0;
        await repo.insert({
          ...record,
          requestId: `req_seed_${day}_${i}`,
          createdAt: at + i,
          apiKeyId: 'key_seeded',
          upstreamAccountId: 'acct_seeded',
          upstreamAccountName: 'seeded',
          latencyMs: i,
          status: failed ? 502 : 200,
          errorCode: failed ? 'upstream_error' : null,
        });
      }
    }
    t.db.exec('COMMIT');
    const range = `since=${Date.UTC(2025, 0, 10)}&until=${Date.UTC(2025, 0, 12)}`;
    const { rows } = await performance(`groupBy=account&bucket=day&${range}`);
    const pick = (bucket: string) => rows.find((r) => r.bucket === bucket) as UsagePerformanceRow;
    expect(rows).toHaveLength(2);
    expect(pick('2025-01-10')).toEqual({
      bucket: '2025-01-10',
      key: 'acct_seeded',
      label: 'seeded',
      requests: 500,
      successes: 500,
      successRate: 1,
      p50Ms: 250,
      p95Ms: 475,
      p99Ms: 495,
    });
    // Day two: the 450 successes are 1..500 without the multiples of ten.
    const ok = Array.from({ length: 500 }, (_, i) => i + 1).filter((i) => i % 10 !== 0);
    expect(pick('2025-01-11')).toMatchObject({
      requests: 500,
      successes: 450,
      successRate: 0.9,
      p50Ms: nearestRank(ok, 50),
      p95Ms: nearestRank(ok, 95),
      p99Ms: nearestRank(ok, 99),
    });
    // All of it together (no groupBy), days breaking at UTC+14 instead: still two buckets, the
    // later one starting at local midnight.
    const shifted = await performance(`bucket=day&utcOffsetMinutes=840&${range}`);
    expect(shifted.rows.map((r) => [r.bucket, r.key, r.requests])).toEqual([
      ['2025-01-11', null, 500],
      ['2025-01-12', null, 500],
    ]);
  });

  it('answers at most the rows asked for, and says when it left some out', async () => {
    const few = await usagePerformance(sqliteEngine(t.db), {
      groupBy: 'key',
      bucket: 'hour',
      limit: 1,
    });
    expect(few.rows).toHaveLength(1);
    expect(few.truncated).toBe(true);
  });

  it('refuses an unknown grouping or bucket, naming it', async () => {
    for (const [query, param] of [
      ['groupBy=model', 'groupBy'],
      ['bucket=week', 'bucket'],
    ]) {
      const res = await studio.fetch(`/api/admin/usage/performance?${query}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });
});
