import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE_PRICES, estimateImageRequest } from '../../src/shared/costEstimate';
import {
  pricesIn,
  scriptFaults,
  startTestGateway,
  studioLogin,
  usageRow,
  type TestGateway,
} from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

interface Answer {
  status: number;
  requestId: string;
  body: { error?: { code: string } };
}

async function post(key: string, path: string, body: unknown): Promise<Answer> {
  const res = await fetch(`${t.url}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    requestId: res.headers.get('x-request-id')!,
    body: (await res.json()) as Answer['body'],
  };
}

const image = (prompt: string) => ({
  model: 'image-model-2',
  prompt,
  size: '1024x1024',
  quality: 'low',
});

/** The shared estimate (and the simulator's exact bill) of one low 1024x1024 image. */
const lowImageCost = (prompt: string) =>
  estimateImageRequest(
    { prompt, size: { width: 1024, height: 1024 }, quality: 'low', n: 1, partialImages: 0 },
    DEFAULT_IMAGE_PRICES,
  ).costMicros;

/** What a key has been billed, from the usage log. */
const spentBy = (keyId: string) =>
  t.db
    .prepare('SELECT COALESCE(SUM(cost_micros), 0) FROM usage_records WHERE api_key_id = ?')
    .pluck()
    .get(keyId) as number;

const BUDGET = 50_000; // $0.05

describe('every request is priced before it is admitted', () => {
  it('estimates /v1/responses text: 10 concurrent calls of 480 KB cannot spend past $0.05', async () => {
    const { key, id } = await t.newKey('text budget', {
      budgetMicros: BUDGET,
      budgetPeriod: 'total',
    });
    const input = 'a long brief about lighthouses. '.repeat(15_000); // 480 KB
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(key, '/responses', { model: 'agent-model-1', input })),
    );
    // One call is 120,000 input tokens, $0.15 at agent-model-1's price: over the budget alone.
    for (const a of answers) {
      expect(a.status).toBe(429);
      expect(a.body.error?.code).toBe('budget_exceeded');
    }
    await Promise.all(answers.map((a) => usageRow(t, a.requestId)));
    expect(spentBy(id)).toBeLessThanOrEqual(BUDGET);
  });

  it('bills a delivered image the upstream reported no usage for at its estimate, marked estimated', async () => {
    const prompt = 'silent upstream: a tin robot';
    const { key, id } = await t.newKey('silent', { budgetMicros: BUDGET, budgetPeriod: 'total' });
    await scriptFaults(t.simUrl, [
      { kind: 'no_usage', times: 12, match: { promptIncludes: prompt } },
    ]);
    const answers: Answer[] = [];
    for (let i = 0; i < 12; i += 1)
      answers.push(await post(key, '/images/generations', image(prompt)));
    const delivered = answers.filter((a) => a.status === 200);
    const cost = lowImageCost(prompt);
    // The budget holds floor($0.05 / estimate) images; the rest are refused before any work.
    expect(delivered).toHaveLength(Math.floor(BUDGET / cost));
    for (const a of answers.filter((x) => x.status !== 200))
      expect(a.body.error?.code).toBe('budget_exceeded');
    for (const a of delivered) {
      const row = await usageRow(t, a.requestId);
      expect(row).toMatchObject({ images: 1, cost_micros: cost, estimated: 1 });
      expect(row.output_image_tokens).toBeGreaterThan(0);
    }
    expect(spentBy(id)).toBe(delivered.length * cost);

    // The admin API (the Usage page) and the CSV say which rows are estimates.
    const studio = await studioLogin(t);
    const listed = await studio.json<{ records: Array<{ status: number; estimated: boolean }> }>(
      `/api/admin/usage?apiKeyId=${id}&status=200`,
    );
    expect(listed.records).toHaveLength(delivered.length);
    expect(listed.records.every((r) => r.estimated)).toBe(true);
    const csv = (await (await studio.fetch(`/api/admin/usage.csv?apiKeyId=${id}`)).text())
      .trim()
      .split('\r\n');
    const column = csv[0]!.split(',').indexOf('estimated');
    expect(column).toBeGreaterThan(-1);
    const cells = csv.slice(1).map((line) => line.split(',')[column]);
    expect(cells.filter((c) => c === 'true')).toHaveLength(delivered.length);
  });

  it('caps an absurd usage figure at what the request could use, marked estimated', async () => {
    const prompt = 'absurd upstream: a paper crane';
    await scriptFaults(t.simUrl, [{ kind: 'absurd_usage', match: { promptIncludes: prompt } }]);
    const a = await post(t.key, '/images/generations', image(prompt));
    expect(a.status).toBe(200);
    const row = await usageRow(t, a.requestId);
    expect(row.estimated).toBe(1);
    expect(row.cost_micros).toBeGreaterThan(0);
    // Capped at twice a high-quality image of its size: uncapped, a million times the real bill.
    expect(row.cost_micros).toBeLessThan(lowImageCost(prompt) * 100);
  });

  it('bills admitted requests at the prices of their admission when a price rises mid-flight', async () => {
    const prompt = 'price rise: a clay teapot';
    await scriptFaults(t.simUrl, [
      { kind: 'slow', delayMs: 5_000, times: 4, match: { promptIncludes: prompt } },
    ]);
    const pending = () =>
      t.db.prepare('SELECT COUNT(*) FROM usage_pending').pluck().get() as number;
    const inFlight = Array.from({ length: 4 }, () =>
      post(t.key, '/images/generations', image(prompt)),
    );
    // The signal: all four are admitted and upstream (each has its pending row).
    while (pending() < 4) await new Promise((resolve) => setImmediate(resolve));
    const prices = await pricesIn(t.db);
    const before = prices.get('image-model-2')!;
    await prices.set('image-model-2', { imageOutput: before.imageOutput * 40 });
    try {
      const answers = await Promise.all(inFlight);
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect((await usageRow(t, a.requestId)).cost_micros).toBe(lowImageCost(prompt));
      }
      // A request admitted after the change pays the new price.
      const later = await post(t.key, '/images/generations', image(prompt));
      expect((await usageRow(t, later.requestId)).cost_micros).toBeGreaterThan(
        lowImageCost(prompt) * 10,
      );
    } finally {
      await prices.set('image-model-2', { imageOutput: before.imageOutput });
    }
  });
});
