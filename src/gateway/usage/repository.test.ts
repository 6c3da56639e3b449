import { describe, expect, it } from 'vitest';
import { normaliseUsage } from '../../shared/tokenUsage';
import { createKeysRepository } from '../keys/repository';
import { ENGINES, testStorage } from '../storage/testing';
import { INTERRUPTED, usageRecordSchema } from '../../shared/usageRecord';
import { createUsageRepository, usageTokenFields, type NewUsageRecord } from './repository';
import { COLUMNS } from './row';

const DAY = 86_400_000;
/** 2026-05-01T00:00:00Z */
const MAY_1 = Date.UTC(2026, 4, 1);

function record(overrides: Partial<NewUsageRecord> = {}): NewUsageRecord {
  return {
    requestId: 'req_1',
    createdAt: MAY_1,
    endpoint: '/v1/images/generations',
    model: 'image-model-2',
    size: '1024x1024',
    deliveredSize: '1024x1024',
    quality: 'high',
    deliveredQuality: 'high',
    outputFormat: 'png',
    n: 1,
    stream: false,
    status: 200,
    errorCode: null,
    errorMessage: null,
    inputTokens: 50,
    inputTextTokens: 50,
    inputImageTokens: 0,
    outputTokens: 4160,
    outputTextTokens: 0,
    outputImageTokens: 4160,
    totalTokens: 4210,
    images: 1,
    latencyMs: 12_000,
    upstreamAccountId: 'acc_1',
    upstreamAccountName: 'Main',
    upstreamRequestId: null,
    groupName: 'default',
    user: null,
    apiKeyId: null,
    costMicros: 125_050,
    priceModel: 'image-model-2',
    fallbackStep: null,
    estimated: false,
    ...overrides,
  };
}

describe.each(ENGINES)('usage repository on %s', (kind) => {
  it('has one column per field of the shared field list, and no other', async () => {
    const { engine } = await testStorage(kind);
    const columns = await engine.all<{ name: string }>(
      kind === 'sqlite'
        ? `SELECT name FROM pragma_table_info('usage_records') WHERE name != 'id'`
        : `SELECT column_name AS name FROM information_schema.columns
           WHERE table_name = 'usage_records' AND column_name <> 'id'`,
    );
    expect(columns.map((c) => c.name).sort()).toEqual(Object.values(COLUMNS).sort());
    expect(Object.keys(COLUMNS)).toEqual(
      Object.keys(usageRecordSchema.shape).filter((f) => f !== 'apiKeyName'),
    );
  });

  it('round-trips every field', async () => {
    const { engine } = await testStorage(kind);
    const usage = createUsageRepository(engine);
    const full = record({
      stream: true,
      user: 'u-1',
      apiKeyId: 'key_0123456789abcdef',
      errorCode: 'upstream_size_mismatch',
      errorMessage: 'delivered 1254x1254',
      deliveredSize: '1254x1254',
      fallbackStep: '3840x2160/medium',
    });
    expect(await usage.insert(full)).toBe(true);
    expect(await usage.get('req_1')).toEqual({ id: expect.any(Number), ...full });
    expect(await usage.get('req_missing')).toBeNull();
  });

  it('records a request once: a second insert with the same request id changes nothing', async () => {
    const { engine } = await testStorage(kind);
    const usage = createUsageRepository(engine);
    expect(await usage.insert(record({ costMicros: 1 }))).toBe(true);
    expect(await usage.insert(record({ costMicros: 2, status: 502 }))).toBe(false);
    expect(await engine.get('SELECT COUNT(*) AS n FROM usage_records')).toEqual({ n: 1 });
    expect(await usage.get('req_1')).toMatchObject({ costMicros: 1, status: 200 });
  });

  it('stores fractional timings as whole numbers instead of losing the record', async () => {
    const { engine } = await testStorage(kind);
    const usage = createUsageRepository(engine);
    expect(await usage.insert(record({ latencyMs: 1234.56, createdAt: MAY_1 + 0.4 }))).toBe(true);
    expect(await usage.get('req_1')).toMatchObject({ latencyMs: 1235, createdAt: MAY_1 });
  });

  it('takes token columns from a normalised usage', async () => {
    const tokens = usageTokenFields(
      normaliseUsage(
        {
          input_tokens: 20,
          input_tokens_details: { text_tokens: 15, image_tokens: 5 },
          output_tokens: 100,
        },
        { imageModel: true },
      ),
    );
    expect(tokens).toEqual({
      inputTokens: 20,
      inputTextTokens: 15,
      inputImageTokens: 5,
      outputTokens: 100,
      outputTextTokens: 0,
      outputImageTokens: 100,
      totalTokens: 120,
    });
  });

  it('lists newest first with filters, paging and a count', async () => {
    const { engine } = await testStorage(kind);
    const usage = createUsageRepository(engine);
    const rows = [
      record({ requestId: 'a', createdAt: MAY_1, apiKeyId: 'key_a' }),
      record({ requestId: 'b', createdAt: MAY_1 + 1000, apiKeyId: 'key_b', status: 502 }),
      record({
        requestId: 'c',
        createdAt: MAY_1 + 2000,
        apiKeyId: 'key_a',
        endpoint: '/v1/images/edits',
      }),
      record({
        requestId: 'd',
        createdAt: MAY_1 + 3000,
        model: 'agent-model-1',
        endpoint: '/v1/responses',
      }),
    ];
    for (const r of rows) await usage.insert(r);

    const ids = async (filter: Parameters<typeof usage.list>[0]) =>
      (await usage.list(filter)).map((r) => r.requestId);
    expect(await ids({})).toEqual(['d', 'c', 'b', 'a']);
    expect(await ids({ limit: 2 })).toEqual(['d', 'c']);
    expect(await ids({ limit: 2, offset: 2 })).toEqual(['b', 'a']);
    expect(await ids({ apiKeyId: 'key_a' })).toEqual(['c', 'a']);
    expect(await ids({ model: 'agent-model-1' })).toEqual(['d']);
    expect(await ids({ endpoint: '/v1/images/edits' })).toEqual(['c']);
    expect(await ids({ status: 502 })).toEqual(['b']);
    expect(await ids({ status: 'error' })).toEqual(['b']);
    expect(await ids({ status: 'success' })).toEqual(['d', 'c', 'a']);
    expect(await ids({ since: MAY_1 + 1000, until: MAY_1 + 3000 })).toEqual(['c', 'b']);
    expect(await usage.count({ apiKeyId: 'key_a' })).toBe(2);
    expect(await usage.count()).toBe(4);
  });

  it('sums tokens, images, cost, requests and errors by day, model, key and account', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const ci = (await keys.create({ name: 'CI' })).record;
    const usage = createUsageRepository(engine);
    const base = {
      inputTokens: 10,
      inputTextTokens: 10,
      outputTokens: 100,
      outputImageTokens: 100,
      totalTokens: 110,
    };
    await usage.insert(
      record({
        ...base,
        requestId: '1',
        createdAt: MAY_1 + 1_000,
        costMicros: 3_000,
        apiKeyId: ci.id,
      }),
    );
    await usage.insert(
      record({
        ...base,
        requestId: '2',
        createdAt: MAY_1 + 2_000,
        costMicros: 3_000,
        apiKeyId: ci.id,
      }),
    );
    await usage.insert(
      record({
        ...base,
        requestId: '3',
        createdAt: MAY_1 + DAY + 5,
        costMicros: 0,
        status: 502,
        images: 0,
        model: 'image-model-2-2026-04-21',
        upstreamAccountId: 'acc_2',
        upstreamAccountName: 'Backup',
      }),
    );
    await usage.insert(
      record({ ...base, requestId: '4', createdAt: MAY_1 + 2 * DAY, costMicros: 10, images: 2 }),
    );

    expect(await usage.totals({ groupBy: 'day' })).toEqual([
      expect.objectContaining({
        key: '2026-05-01',
        label: '2026-05-01',
        requests: 2,
        errors: 0,
        costMicros: 6_000,
      }),
      expect.objectContaining({
        key: '2026-05-02',
        requests: 1,
        errors: 1,
        images: 0,
        costMicros: 0,
      }),
      expect.objectContaining({ key: '2026-05-03', requests: 1, images: 2, costMicros: 10 }),
    ]);
    expect(await usage.totals({ groupBy: 'model' })).toEqual([
      expect.objectContaining({
        key: 'image-model-2',
        requests: 3,
        costMicros: 6_010,
        totalTokens: 330,
      }),
      expect.objectContaining({ key: 'image-model-2-2026-04-21', requests: 1, errors: 1 }),
    ]);
    expect(await usage.totals({ groupBy: 'key' })).toEqual([
      expect.objectContaining({ key: ci.id, label: 'CI', requests: 2, costMicros: 6_000 }),
      expect.objectContaining({ key: null, label: null, requests: 2, costMicros: 10 }),
    ]);
    expect(await usage.totals({ groupBy: 'account' })).toEqual([
      expect.objectContaining({ key: 'acc_1', label: 'Main', requests: 3 }),
      expect.objectContaining({ key: 'acc_2', label: 'Backup', requests: 1 }),
    ]);
    expect(await usage.totals({ since: MAY_1 + DAY })).toEqual([
      {
        key: null,
        label: null,
        requests: 2,
        errors: 1,
        cancelled: 0,
        images: 2,
        inputTokens: 20,
        inputTextTokens: 20,
        inputImageTokens: 0,
        outputTokens: 200,
        outputTextTokens: 0,
        outputImageTokens: 200,
        totalTokens: 220,
        costMicros: 10,
      },
    ]);
  });

  it("breaks days at the caller's midnight when given a UTC offset", async () => {
    const { engine } = await testStorage(kind);
    const usage = createUsageRepository(engine);
    // 23:30 UTC on May 1 is already May 2 in UTC+2 and still May 1 in UTC-5.
    await usage.insert(record({ requestId: 'late', createdAt: MAY_1 + 23.5 * 3_600_000 }));
    expect((await usage.totals({ groupBy: 'day' }))[0]?.key).toBe('2026-05-01');
    expect((await usage.totals({ groupBy: 'day', utcOffsetMinutes: 120 }))[0]?.key).toBe(
      '2026-05-02',
    );
    expect((await usage.totals({ groupBy: 'day', utcOffsetMinutes: -300 }))[0]?.key).toBe(
      '2026-05-01',
    );
  });

  it('counts a caller that left after its image was made as delivered, not as an error', async () => {
    const { engine } = await testStorage(kind);
    const usage = createUsageRepository(engine);
    const left = { status: 499, errorCode: 'client_cancelled' };
    await usage.insert(record({ requestId: 'made', createdAt: MAY_1, images: 1, ...left }));
    await usage.insert(record({ requestId: 'not-made', createdAt: MAY_1 + 1, images: 0, ...left }));
    // A request the gateway never finished stays a failure even when an image is recorded.
    await usage.insert(
      record({
        requestId: 'stopped',
        createdAt: MAY_1 + 2,
        images: 1,
        status: 499,
        errorCode: INTERRUPTED,
      }),
    );
    const ids = async (status: 'error' | 'success' | 'cancelled') =>
      (await usage.list({ status })).map((r) => r.requestId);
    // A cancel before any image is the caller's own choice, neither a failure nor a success.
    expect(await ids('error')).toEqual(['stopped']);
    expect(await ids('cancelled')).toEqual(['not-made']);
    expect(await ids('success')).toEqual(['made']);
    expect(await usage.totals()).toEqual([
      expect.objectContaining({ requests: 3, errors: 1, cancelled: 1 }),
    ]);
  });

  it('totals an empty log as one zero row', async () => {
    const { engine } = await testStorage(kind);
    expect(await createUsageRepository(engine).totals()).toEqual([
      expect.objectContaining({ key: null, requests: 0, errors: 0, costMicros: 0, totalTokens: 0 }),
    ]);
    expect(await createUsageRepository(engine).totals({ groupBy: 'model' })).toEqual([]);
  });

  it('computes latency percentiles and success rates per bucket and group in SQL', async () => {
    const { engine } = await testStorage(kind);
    const keys = createKeysRepository(engine);
    const ci = (await keys.create({ name: 'CI' })).record;
    const usage = createUsageRepository(engine);
    // Hour 10 of May 1: ten requests of key CI, latencies 10..100 ms, the 100 ms one failed.
    for (let i = 1; i <= 10; i += 1) {
      await usage.insert(
        record({
          requestId: `p${i}`,
          createdAt: MAY_1 + 10 * 3_600_000 + i,
          apiKeyId: ci.id,
          latencyMs: i * 10,
          status: i === 10 ? 502 : 200,
        }),
      );
    }
    // One request without a key in the next hour.
    await usage.insert(record({ requestId: 'q', createdAt: MAY_1 + 11 * 3_600_000 }));

    const byHour = await usage.performance({ groupBy: 'key', bucket: 'hour', limit: 10 });
    expect(byHour).toEqual({
      truncated: false,
      rows: [
        {
          bucket: '2026-05-01T10',
          key: ci.id,
          label: 'CI',
          requests: 10,
          successes: 9,
          successRate: 0.9,
          p50Ms: 50,
          p95Ms: 90,
          p99Ms: 90,
        },
        {
          bucket: '2026-05-01T11',
          key: null,
          label: null,
          requests: 1,
          successes: 1,
          successRate: 1,
          p50Ms: 12_000,
          p95Ms: 12_000,
          p99Ms: 12_000,
        },
      ],
    });
    const byDay = await usage.performance({ bucket: 'day', utcOffsetMinutes: 14 * 60, limit: 1 });
    expect(byDay.rows).toEqual([
      expect.objectContaining({ bucket: '2026-05-02', key: null, requests: 11, successes: 10 }),
    ]);
    expect(byDay.truncated).toBe(false);
    const none = await usage.performance({ bucket: 'day', since: MAY_1 + 2 * DAY, limit: 5 });
    expect(none).toEqual({ rows: [], truncated: false });
    expect((await usage.performance({ groupBy: 'key', bucket: 'hour', limit: 1 })).truncated).toBe(
      true,
    );
  });

  it('keeps pending rows with their lease, renews them by run, and ends one once', async () => {
    const { engine } = await testStorage(kind);
    const usage = createUsageRepository(engine);
    const pending = (requestId: string, ownerRun: string, leaseMs: number) => ({
      requestId,
      record: record({ requestId, costMicros: 7, estimated: true }),
      attempts: 1,
      updatedAt: MAY_1,
      ownerPid: 1,
      ownerRun,
      leaseUntil: MAY_1 + leaseMs,
    });
    // Leases are kept by the lease clock (the database's on PostgreSQL): a lease of 0 has ended
    // as soon as it is written, one of a minute has not.
    await usage.savePending(pending('a', 'run_1', 0));
    await usage.savePending(pending('b', 'run_2', 0));
    await usage.savePending({ ...pending('a', 'run_1', 0), attempts: 3 });
    expect((await usage.listLapsed(MAY_1)).map((p) => p.requestId)).toEqual(['a', 'b']);
    expect(await usage.renewLeases('run_1', MAY_1 + 60_000, MAY_1)).toBe(1);
    const { leaseUntil: _a, ...a } = { ...pending('a', 'run_1', 0), attempts: 3 };
    const { leaseUntil: _b, ...b } = pending('b', 'run_2', 0);
    expect(await usage.listPending()).toEqual([
      { ...a, leaseUntil: expect.any(Number) },
      { ...b, leaseUntil: expect.any(Number) },
    ]);
    expect((await usage.listLapsed(MAY_1)).map((p) => p.requestId)).toEqual(['b']);
    // Lease of a still in force: not taken. b's over: taken once.
    expect(await usage.reconcile('a', record({ requestId: 'a' }), MAY_1)).toBe(false);
    expect(await usage.reconcile('b', record({ requestId: 'b' }), MAY_1)).toBe(true);
    expect(await usage.reconcile('b', record({ requestId: 'b' }), MAY_1)).toBe(false);
    expect(await usage.countPending()).toBe(1);
    await usage.probe();
    expect(await usage.countPending()).toBe(1);
    expect(await usage.complete(record({ requestId: 'a' }))).toBe(true);
    expect(await usage.countPending()).toBe(0);
    expect(await usage.count()).toBe(2);
    expect(await usage.lastId()).toBeGreaterThan(0);
  });
});
