import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetAlert, CreateKeyResponse, KeysResponse } from '../../src/shared/admin';
import { estimateImageRequest } from '../../src/shared/costEstimate';
import { createGateway, type Gateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase } from '../../src/gateway/storage/db';
import { createKeysRepository, type NewApiKey } from '../../src/gateway/keys/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import type { PricesRepository } from '../../src/gateway/storage/pricesRepository';
import {
  pricesIn,
  simInit,
  startTestGateway,
  studioLogin,
  tempDir,
  usageRow,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

let t: TestGateway;
let studio: StudioClient;
let prices: PricesRepository;

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
  prices = await pricesIn(t.db);
});
afterAll(async () => {
  await t.close();
});

interface LimitBody {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string;
    limit?: {
      name: string;
      period: string;
      unit: string;
      limit: number;
      used: number;
      requested: number;
      resets_at: string | null;
    };
  };
}

interface Answer {
  status: number;
  requestId: string;
  headers: Headers;
  body: LimitBody & { data?: unknown[] };
}

async function generate(url: string, key: string, body: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(`${url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    requestId: res.headers.get('x-request-id')!,
    headers: res.headers,
    body: (await res.json()) as Answer['body'],
  };
}

/** Calls the simulator received with this prompt (each test uses its own prompt). */
async function upstreamCalls(simUrl: string, prompt: string): Promise<number> {
  const res = await fetch(`${simUrl}/__sim/calls`, simInit(simUrl));
  const { calls } = (await res.json()) as { calls: Array<{ prompt?: string }> };
  return calls.filter((c) => c.prompt === prompt).length;
}

const request = (prompt: string, extra: Record<string, unknown> = {}) => ({
  model: 'image-model-2',
  prompt,
  size: '1024x1024',
  quality: 'low',
  ...extra,
});

/** The gateway's own estimate of one such request, at the price in its database. */
function estimateOf(prompt: string, n = 1): number {
  const price = prices.get('image-model-2')!;
  return estimateImageRequest(
    { prompt, size: { width: 1024, height: 1024 }, quality: 'low', n, partialImages: 0 },
    price,
  ).costMicros;
}

const nextUtcMidnight = (now = Date.now()) => {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
};

describe('a spend budget', () => {
  it('lets exactly 10 of 50 concurrent requests through a budget that allows 10, and bills 10', async () => {
    const prompt = 'budget race: a copper kettle';
    const cost = estimateOf(prompt);
    expect(cost).toBeGreaterThan(0);
    const { key, id } = await t.newKey('budget-race', {
      budgetMicros: cost * 10,
      budgetPeriod: 'day',
    });

    const answers = await Promise.all(
      Array.from({ length: 50 }, () => generate(t.url, key, request(prompt))),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    expect(await upstreamCalls(t.simUrl, prompt)).toBe(10);
    for (const a of refused) {
      expect(a.body.error.code).toBe('budget_exceeded');
      expect(a.body.error.type).toBe('rate_limit_error');
      expect(a.body.error.limit).toMatchObject({
        name: 'budget',
        period: 'day',
        unit: 'usd',
        limit: (cost * 10) / 1e6,
        requested: cost / 1e6,
        resets_at: nextUtcMidnight(),
      });
      // Reserved or spent, the 10 admitted requests already hold the whole budget.
      expect(a.body.error.limit!.used).toBe((cost * 10) / 1e6);
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(a.headers.get('x-should-retry')).toBe(
        Number(a.headers.get('retry-after')) > 60 ? 'false' : null,
      );
    }

    // Settled with the real cost: the estimate was exact against the simulator.
    const rows = await Promise.all(answers.map((a) => usageRow(t, a.requestId)));
    const billed = rows.filter((r) => r.status === 200);
    expect(billed.reduce((sum, r) => sum + r.cost_micros, 0)).toBe(cost * 10);
    for (const row of rows.filter((r) => r.status === 429)) {
      expect(row).toMatchObject({
        error_code: 'budget_exceeded',
        api_key_id: id,
        total_tokens: 0,
        cost_micros: 0,
        images: 0,
        upstream_account_id: null,
      });
    }
    // The next request is refused too, and says nothing is reserved any more.
    const after = await generate(t.url, key, request(prompt));
    expect(after.status).toBe(429);
    expect(after.body.error.limit!.used).toBe((cost * 10) / 1e6);
  });

  it('a total budget never resets: no retry-after, and SDKs are told not to retry', async () => {
    const prompt = 'total budget: a paper boat';
    const cost = estimateOf(prompt);
    const { key } = await t.newKey('total', { budgetMicros: cost, budgetPeriod: 'total' });
    expect((await generate(t.url, key, request(prompt))).status).toBe(200);
    const refused = await generate(t.url, key, request(prompt));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(refused.body.error.limit).toMatchObject({ period: 'total', resets_at: null });
    expect(refused.body.error.message).toMatch(/does not reset/);
  });

  it('refuses a request whose estimate alone is over what is left', async () => {
    const prompt = 'n over budget: a glass fish';
    const cost = estimateOf(prompt);
    const { key } = await t.newKey('n-over', { budgetMicros: cost * 3, budgetPeriod: 'month' });
    const four = await generate(t.url, key, request(prompt, { n: 4 }));
    expect(four.status).toBe(429);
    expect(four.body.error.limit).toMatchObject({ used: 0, requested: (cost * 4) / 1e6 });
    expect(await upstreamCalls(t.simUrl, prompt)).toBe(0);
    expect((await generate(t.url, key, request(prompt, { n: 3 }))).status).toBe(200);
  });
});

describe('requests per minute', () => {
  it('admits N requests in 60 seconds, then 429 rate_limit_exceeded with a retry-after', async () => {
    const prompt = 'rpm: a wooden horse';
    const { key } = await t.newKey('rpm', { rpmLimit: 3 });
    const started = Date.now();
    for (let i = 0; i < 3; i++)
      expect((await generate(t.url, key, request(prompt))).status).toBe(200);
    const refused = await generate(t.url, key, request(prompt));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(refused.body.error.limit).toMatchObject({
      name: 'requests_per_minute',
      period: 'minute',
      unit: 'requests',
      limit: 3,
      used: 3,
      requested: 1,
    });
    const resets = Date.parse(refused.body.error.limit!.resets_at!);
    expect(resets).toBeGreaterThanOrEqual(started + 60_000 - 1_000);
    expect(resets).toBeLessThanOrEqual(Date.now() + 60_000);
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // A refusal is not a request: being refused again does not push the reset further away.
    const again = await generate(t.url, key, request(prompt));
    expect(again.body.error.limit!.used).toBe(3);
    expect(await upstreamCalls(t.simUrl, prompt)).toBe(3);
  });
});

describe('images per day', () => {
  it('counts images, not requests, and refuses an n that would pass the limit', async () => {
    const prompt = 'images per day: a tin drum';
    const { key } = await t.newKey('images', { imagesPerDay: 3 });
    expect((await generate(t.url, key, request(prompt, { n: 2 }))).status).toBe(200);
    const two = await generate(t.url, key, request(prompt, { n: 2 }));
    expect(two.status).toBe(429);
    expect(two.body.error.code).toBe('rate_limit_exceeded');
    expect(two.body.error.limit).toMatchObject({
      name: 'images_per_day',
      period: 'day',
      unit: 'images',
      limit: 3,
      used: 2,
      requested: 2,
      resets_at: nextUtcMidnight(),
    });
    expect((await generate(t.url, key, request(prompt, { n: 1 }))).status).toBe(200);
    const full = await generate(t.url, key, request(prompt, { n: 1 }));
    expect(full.status).toBe(429);
    expect(full.body.error.limit).toMatchObject({ used: 3, requested: 1 });
    expect(await upstreamCalls(t.simUrl, prompt)).toBe(3);
  });

  it('limits the Responses image tool too', async () => {
    const { key } = await t.newKey('responses-images', { imagesPerDay: 1 });
    const call = () =>
      fetch(`${t.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'agent-model-1',
          input: 'draw a lantern',
          tools: [{ type: 'image_generation', size: '1024x1024', quality: 'low' }],
        }),
      });
    const first = await call();
    await first.arrayBuffer();
    expect(first.status).toBe(200);
    const second = await call();
    expect(second.status).toBe(429);
    expect(((await second.json()) as LimitBody).error.limit).toMatchObject({
      name: 'images_per_day',
      used: 1,
    });
    // A call that asks for no image is not limited by images per day.
    const text = await fetch(`${t.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'agent-model-1', input: 'say hello' }),
    });
    await text.arrayBuffer();
    expect(text.status).toBe(200);
  });
});

describe('expiry', () => {
  it('an expired key is a 401 INVALID_API_KEY that says it expired, on every endpoint', async () => {
    const expiresAt = Date.UTC(2026, 0, 1);
    const { key, id } = await t.newKey('expired', { expiresAt });
    const post = await generate(t.url, key, request('expired: a clock'));
    expect(post.status).toBe(401);
    expect(post.body.error.code).toBe('INVALID_API_KEY');
    expect(post.body.error.message).toContain('expired at 2026-01-01T00:00:00.000Z');
    const row = await usageRow(t, post.requestId);
    expect(row).toMatchObject({ status: 401, api_key_id: id, total_tokens: 0 });
    const models = await fetch(`${t.url}/v1/models`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(models.status).toBe(401);
    expect(await upstreamCalls(t.simUrl, 'expired: a clock')).toBe(0);

    const future = await t.newKey('not yet', { expiresAt: Date.now() + 86_400_000 });
    expect((await generate(t.url, future.key, request('not expired: a clock'))).status).toBe(200);
  });
});

describe('admin API', () => {
  it('creates, lists with use, changes and clears limits', async () => {
    const created = await studio.json<CreateKeyResponse>('/api/admin/keys', {
      method: 'POST',
      body: { name: 'limited app', budgetMicros: 5_000_000, rpmLimit: 10, imagesPerDay: 20 },
    });
    expect(created.record).toMatchObject({
      budgetMicros: 5_000_000,
      budgetPeriod: 'month',
      rpmLimit: 10,
      imagesPerDay: 20,
      expiresAt: null,
      limitUse: { budgetUsedMicros: 0, imagesToday: 0, requestsLastMinute: 0 },
    });
    const prompt = 'admin use: a red kite';
    expect((await generate(t.url, created.key, request(prompt, { n: 2 }))).status).toBe(200);
    const { keys } = await studio.json<KeysResponse>('/api/admin/keys');
    const listed = keys.find((k) => k.id === created.record.id)!;
    expect(listed.limitUse).toMatchObject({
      budgetUsedMicros: estimateOf(prompt, 2),
      imagesToday: 2,
      requestsLastMinute: 1,
    });
    const d = new Date();
    expect(listed.limitUse.budgetResetsAt).toBe(
      Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
    );

    const patched = await studio.json<{ record: KeysResponse['keys'][number] }>(
      `/api/admin/keys/${created.record.id}`,
      { method: 'PATCH', body: { budgetMicros: null, expiresAt: Date.UTC(2030, 0, 1) } },
    );
    expect(patched.record).toMatchObject({
      budgetMicros: null,
      budgetPeriod: null,
      rpmLimit: 10,
      expiresAt: Date.UTC(2030, 0, 1),
    });

    for (const body of [{ budgetPeriod: 'week' }, { rpmLimit: 0 }, { budgetPeriod: 'day' }]) {
      const res = await studio.fetch(`/api/admin/keys/${created.record.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      const json = (await res.json()) as LimitBody;
      expect(json.error.param).toMatch(/budget|rpm/i);
    }
  });
});

describe('budget alerts on the admin events stream', () => {
  it('announces 50, 80 and 100 % of a budget once each, as the spend passes them', async () => {
    const controller = new AbortController();
    const res = await studio.fetch('/api/admin/events', { signal: controller.signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const budgetEvents = () =>
      buffer
        .split('\n\n')
        .filter((block) => block.startsWith('event: budget\n'))
        .map((block) => JSON.parse(block.split('\n')[1]!.slice('data: '.length)) as BudgetAlert);
    const until = async (test: () => boolean) => {
      while (!test()) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended: ${buffer}`);
        buffer += value;
      }
    };
    await until(() => buffer.includes(': connected\n\n'));

    const prompt = 'alerts: a silver bell';
    const cost = estimateOf(prompt);
    const { key, id } = await t.newKey('alerts', { budgetMicros: cost * 4, budgetPeriod: 'month' });
    const usageSeen = (requestId: string) => () => buffer.includes(requestId);
    // 25 %: nothing; 50 %: the first alert.
    for (let i = 0; i < 2; i++) {
      const { requestId, status } = await generate(t.url, key, request(prompt));
      expect(status).toBe(200);
      await until(usageSeen(requestId));
    }
    expect(budgetEvents().map((e) => e.percent)).toEqual([50]);
    // 75 %, then 100 %: 80 and 100 come with the request that passed both.
    for (let i = 0; i < 2; i++) await generate(t.url, key, request(prompt));
    await until(() => budgetEvents().length === 3);
    const refused = await generate(t.url, key, request(prompt));
    expect(refused.status).toBe(429);
    await until(usageSeen(refused.requestId));
    const events = budgetEvents();
    expect(events.map((e) => e.percent)).toEqual([50, 80, 100]);
    const d = new Date();
    expect(events[2]).toMatchObject({
      apiKeyId: id,
      apiKeyName: 'alerts',
      period: 'month',
      budgetMicros: cost * 4,
      spentMicros: cost * 4,
      periodStart: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
      resetsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
    });
    expect(events[0]!.spentMicros).toBe(cost * 2);
    controller.abort();
  });
});

describe('limits survive a restart', () => {
  let dataDir: string;
  let gateways: Gateway[] = [];
  afterAll(async () => {
    for (const g of gateways) await g.close(1_000);
    gateways = [];
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const gateway = await createGateway({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      simulatorSpeed: 0,
      oauthCallbackPort: 0,
      log: () => undefined,
    });
    gateways.push(gateway);
    return { gateway, url: await gateway.listen() };
  };

  it('a second gateway on the same SQLite file goes on from the first one’s use in the period', async () => {
    dataDir = tempDir();
    const db = openDatabase(databasePath(dataDir));
    const prompt = 'restart: a brass key';
    const price = (await pricesIn(db)).get('image-model-2')!;
    const cost = estimateImageRequest(
      { prompt, size: { width: 1024, height: 1024 }, quality: 'low', n: 1, partialImages: 0 },
      price,
    ).costMicros;
    const limits: Partial<NewApiKey> = {
      budgetMicros: cost * 3,
      budgetPeriod: 'day',
      rpmLimit: 4,
      imagesPerDay: 100,
    };
    const { key } = await createKeysRepository(sqliteEngine(db)).create({
      name: 'restart',
      ...limits,
    });
    db.close();

    const first = await start();
    for (let i = 0; i < 2; i++)
      expect((await generate(first.url, key, request(prompt))).status).toBe(200);
    await first.gateway.close(1_000);

    const second = await start();
    expect((await generate(second.url, key, request(prompt))).status).toBe(200);
    const refused = await generate(second.url, key, request(prompt));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('budget_exceeded');
    expect(refused.body.error.limit).toMatchObject({ used: (cost * 3) / 1e6 });

    // Requests per minute carry over too: 3 made, the refusal not counted, one more allowed.
    const { key: rpmKey } = await (async () => {
      const d = openDatabase(databasePath(dataDir));
      try {
        return await createKeysRepository(sqliteEngine(d)).create({
          name: 'rpm restart',
          rpmLimit: 2,
        });
      } finally {
        d.close();
      }
    })();
    expect((await generate(second.url, rpmKey, request(prompt))).status).toBe(200);
    await second.gateway.close(1_000);
    const third = await start();
    expect((await generate(third.url, rpmKey, request(prompt))).status).toBe(200);
    const limited = await generate(third.url, rpmKey, request(prompt));
    expect(limited.status).toBe(429);
    expect(limited.body.error.limit).toMatchObject({ name: 'requests_per_minute', used: 2 });
  });
});
