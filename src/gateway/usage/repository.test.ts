import { describe, expect, it } from 'vitest';
import { normaliseUsage } from '../../shared/tokenUsage';
import { createKeysRepository } from '../keys/repository';
import { sqliteEngine } from '../storage/sqliteEngine';
import { tempDatabase } from '../storage/testing';
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

describe('usage repository', () => {
  it('has one column per field of the shared field list, and no other', () => {
    const { db } = tempDatabase();
    const columns = db
      .prepare(`SELECT name FROM pragma_table_info('usage_records') WHERE name != 'id'`)
      .pluck()
      .all();
    expect([...columns].sort()).toEqual(Object.values(COLUMNS).sort());
    expect(Object.keys(COLUMNS)).toEqual(
      Object.keys(usageRecordSchema.shape).filter((f) => f !== 'apiKeyName'),
    );
  });

  it('round-trips every field', () => {
    const { db } = tempDatabase();
    const usage = createUsageRepository(db);
    const full = record({
      stream: true,
      user: 'u-1',
      apiKeyId: 'key_0123456789abcdef',
      errorCode: 'upstream_size_mismatch',
      errorMessage: 'delivered 1254x1254',
      deliveredSize: '1254x1254',
      fallbackStep: '3840x2160/medium',
    });
    expect(usage.insert(full)).toBe(true);
    expect(usage.get('req_1')).toEqual({ id: expect.any(Number), ...full });
    expect(usage.get('req_missing')).toBeNull();
  });

  it('records a request once: a second insert with the same request id changes nothing', () => {
    const { db } = tempDatabase();
    const usage = createUsageRepository(db);
    expect(usage.insert(record({ costMicros: 1 }))).toBe(true);
    expect(usage.insert(record({ costMicros: 2, status: 502 }))).toBe(false);
    expect(db.prepare('SELECT COUNT(*) FROM usage_records').pluck().get()).toBe(1);
    expect(usage.get('req_1')).toMatchObject({ costMicros: 1, status: 200 });
  });

  it('stores fractional timings as whole numbers instead of losing the record', () => {
    const { db } = tempDatabase();
    const usage = createUsageRepository(db);
    expect(usage.insert(record({ latencyMs: 1234.56, createdAt: MAY_1 + 0.4 }))).toBe(true);
    expect(usage.get('req_1')).toMatchObject({ latencyMs: 1235, createdAt: MAY_1 });
  });

  it('takes token columns from a normalised usage', () => {
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

  it('lists newest first with filters, paging and a count', () => {
    const { db } = tempDatabase();
    const usage = createUsageRepository(db);
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
    for (const r of rows) usage.insert(r);

    const ids = (filter: Parameters<typeof usage.list>[0]) =>
      usage.list(filter).map((r) => r.requestId);
    expect(ids({})).toEqual(['d', 'c', 'b', 'a']);
    expect(ids({ limit: 2 })).toEqual(['d', 'c']);
    expect(ids({ limit: 2, offset: 2 })).toEqual(['b', 'a']);
    expect(ids({ apiKeyId: 'key_a' })).toEqual(['c', 'a']);
    expect(ids({ model: 'agent-model-1' })).toEqual(['d']);
    expect(ids({ endpoint: '/v1/images/edits' })).toEqual(['c']);
    expect(ids({ status: 502 })).toEqual(['b']);
    expect(ids({ status: 'error' })).toEqual(['b']);
    expect(ids({ status: 'success' })).toEqual(['d', 'c', 'a']);
    expect(ids({ since: MAY_1 + 1000, until: MAY_1 + 3000 })).toEqual(['c', 'b']);
    expect(usage.count({ apiKeyId: 'key_a' })).toBe(2);
    expect(usage.count()).toBe(4);
  });

  it('sums tokens, images, cost, requests and errors by day, model, key and account', async () => {
    const { db } = tempDatabase();
    const keys = createKeysRepository(sqliteEngine(db));
    const ci = (await keys.create({ name: 'CI' })).record;
    const usage = createUsageRepository(db);
    const base = {
      inputTokens: 10,
      inputTextTokens: 10,
      outputTokens: 100,
      outputImageTokens: 100,
      totalTokens: 110,
    };
    usage.insert(
      record({
        ...base,
        requestId: '1',
        createdAt: MAY_1 + 1_000,
        costMicros: 3_000,
        apiKeyId: ci.id,
      }),
    );
    usage.insert(
      record({
        ...base,
        requestId: '2',
        createdAt: MAY_1 + 2_000,
        costMicros: 3_000,
        apiKeyId: ci.id,
      }),
    );
    usage.insert(
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
    usage.insert(
      record({ ...base, requestId: '4', createdAt: MAY_1 + 2 * DAY, costMicros: 10, images: 2 }),
    );

    expect(usage.totals({ groupBy: 'day' })).toEqual([
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
    expect(usage.totals({ groupBy: 'model' })).toEqual([
      expect.objectContaining({
        key: 'image-model-2',
        requests: 3,
        costMicros: 6_010,
        totalTokens: 330,
      }),
      expect.objectContaining({ key: 'image-model-2-2026-04-21', requests: 1, errors: 1 }),
    ]);
    expect(usage.totals({ groupBy: 'key' })).toEqual([
      expect.objectContaining({ key: ci.id, label: 'CI', requests: 2, costMicros: 6_000 }),
      expect.objectContaining({ key: null, label: null, requests: 2, costMicros: 10 }),
    ]);
    expect(usage.totals({ groupBy: 'account' })).toEqual([
      expect.objectContaining({ key: 'acc_1', label: 'Main', requests: 3 }),
      expect.objectContaining({ key: 'acc_2', label: 'Backup', requests: 1 }),
    ]);
    expect(usage.totals({ since: MAY_1 + DAY })).toEqual([
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

  it("breaks days at the caller's midnight when given a UTC offset", () => {
    const { db } = tempDatabase();
    const usage = createUsageRepository(db);
    // 23:30 UTC on May 1 is already May 2 in UTC+2 and still May 1 in UTC-5.
    usage.insert(record({ requestId: 'late', createdAt: MAY_1 + 23.5 * 3_600_000 }));
    expect(usage.totals({ groupBy: 'day' })[0]?.key).toBe('2026-05-01');
    expect(usage.totals({ groupBy: 'day', utcOffsetMinutes: 120 })[0]?.key).toBe('2026-05-02');
    expect(usage.totals({ groupBy: 'day', utcOffsetMinutes: -300 })[0]?.key).toBe('2026-05-01');
  });

  it('counts a caller that left after its image was made as delivered, not as an error', () => {
    const { db } = tempDatabase();
    const usage = createUsageRepository(db);
    const left = { status: 499, errorCode: 'client_cancelled' };
    usage.insert(record({ requestId: 'made', createdAt: MAY_1, images: 1, ...left }));
    usage.insert(record({ requestId: 'not-made', createdAt: MAY_1 + 1, images: 0, ...left }));
    // A request the gateway never finished stays a failure even when an image is recorded.
    usage.insert(
      record({
        requestId: 'stopped',
        createdAt: MAY_1 + 2,
        images: 1,
        status: 499,
        errorCode: INTERRUPTED,
      }),
    );
    const ids = (status: 'error' | 'success' | 'cancelled') =>
      usage.list({ status }).map((r) => r.requestId);
    // A cancel before any image is the caller's own choice, neither a failure nor a success.
    expect(ids('error')).toEqual(['stopped']);
    expect(ids('cancelled')).toEqual(['not-made']);
    expect(ids('success')).toEqual(['made']);
    expect(usage.totals()).toEqual([
      expect.objectContaining({ requests: 3, errors: 1, cancelled: 1 }),
    ]);
  });

  it('totals an empty log as one zero row', () => {
    const { db } = tempDatabase();
    expect(createUsageRepository(db).totals()).toEqual([
      expect.objectContaining({ key: null, requests: 0, errors: 0, costMicros: 0, totalTokens: 0 }),
    ]);
    expect(createUsageRepository(db).totals({ groupBy: 'model' })).toEqual([]);
  });
});
