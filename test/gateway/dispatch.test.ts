import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  openAccountsRepository,
  type AccountsRepository,
} from '../../src/gateway/accounts/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import type { AccountRecord } from '../../src/gateway/core/domain';
import { SETTINGS } from '../../src/gateway/storage/settings';
import { decodeB64 } from '../support/images';
import {
  settingsIn,
  clearFaults,
  scriptFaults,
  startTestGateway,
  usageRow,
  type TestGateway,
  simInit,
} from '../support/gateway';

let t: TestGateway;
let accounts: AccountsRepository;
const made: Record<string, AccountRecord> = {};

/** Simulated accounts: each calls the simulator with its own key `sim-<id>`, so faults can target it. */
async function account(name: string, opts: Partial<AccountRecord> = {}): Promise<AccountRecord> {
  const record = await accounts.create({
    name,
    kind: 'simulator',
    tier: 'pro',
    groupName: 'default',
    capacity: 4,
    enabled: true,
    modelMap: {},
    maxPixels: 8_294_400,
    baseUrl: 'builtin',
    issuer: null,
    bridgeModel: null,
    upstreamAccountId: null,
    secretName: null,
    ...opts,
  });
  made[name] = record;
  return record;
}

const simKey = (a: AccountRecord) => `sim-${a.id}`;

async function simCalls(): Promise<
  Array<{ accountId?: string; status?: number; size?: string; quality?: string }>
> {
  return (
    (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
      calls: Array<{ accountId?: string }>;
    }
  ).calls;
}

async function post(
  body: Record<string, unknown>,
  key = t.key,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as {
    error?: { code: string; message: string; param: string | null };
    data?: Array<{ b64_json: string }>;
    size?: string;
  };
  return { res, json, requestId: res.headers.get('x-request-id')! };
}

const gen = {
  model: 'image-model-2',
  prompt: 'a copper kettle',
  size: '1024x1024',
  quality: 'low',
};

beforeAll(async () => {
  t = await startTestGateway();
  accounts = await openAccountsRepository(sqliteEngine(t.db));
  await account('alpha', { tier: 'pro' });
  await account('beta', { tier: 'plus' });
  await account('other', { tier: 'pro', groupName: 'other' });
  await account('small', { tier: 'pro', groupName: 'mixed', maxPixels: 1_638_400 });
  await account('big', { tier: 'plus', groupName: 'mixed' });
  await account('only-small', { tier: 'pro', groupName: 'smallonly', maxPixels: 1_638_400 });
  await account('solo', { tier: 'pro', groupName: 'solo', capacity: 1 });
});
afterEach(async () => {
  await clearFaults(t.simUrl);
  await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
  for (const a of Object.values(made)) await accounts.setCooldown(a.id, null, null);
  await (await settingsIn(t.db)).reset(SETTINGS.strictDelivery);
});
afterAll(async () => {
  await t.close();
});

describe('choosing an account', () => {
  it('stored accounts replace the implicit simulator account, and the higher tier is preferred', async () => {
    const { res, requestId } = await post(gen);
    expect(res.status).toBe(200);
    expect((await simCalls()).map((c) => c.accountId)).toEqual([simKey(made.alpha!)]);
    expect((await usageRow(t, requestId)).upstream_account_id).toBe(made.alpha!.id);
  });

  it('dispatches only inside the key group', async () => {
    const other = await t.newKey('other-group', { group: 'other' });
    expect((await post(gen, other.key)).res.status).toBe(200);
    expect((await simCalls()).map((c) => c.accountId)).toEqual([simKey(made.other!)]);
  });

  it('sends a request larger than an account can deliver to one that can', async () => {
    const mixed = await t.newKey('mixed', { group: 'mixed' });
    await post({ ...gen, size: '3840x2160', output_format: 'jpeg' }, mixed.key);
    await post(gen, mixed.key);
    expect((await simCalls()).map((c) => c.accountId)).toEqual([
      simKey(made.big!),
      simKey(made.small!),
    ]);
  });

  it('refuses a size no account of the group can deliver, saying what would help', async () => {
    const small = await t.newKey('small-only', { group: 'smallonly' });
    const { res, json } = await post({ ...gen, size: '3840x2160' }, small.key);
    expect(res.status).toBe(400);
    expect(json.error).toMatchObject({ code: 'size_not_available', param: 'size' });
    expect(json.error!.message).toMatch(/fallback ladder/);
  });

  it('holds requests to the account capacity (capacity 1: one at a time, none lost)', async () => {
    const solo = await t.newKey('solo', { group: 'solo' });
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 250, times: 3 }]);
    const started = Date.now();
    const results = await Promise.all([1, 2, 3].map(() => post(gen, solo.key)));
    expect(results.map((r) => r.res.status)).toEqual([200, 200, 200]);
    // Three 250 ms calls that may not overlap take at least 750 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(740);
  });

  it('caps requests in flight per key when the key says so', async () => {
    const capped = await t.newKey('capped', { concurrencyLimit: 1 });
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 300, times: 2 }]);
    const results = await Promise.all([post(gen, capped.key), post(gen, capped.key)]);
    const statuses = results.map((r) => r.res.status).sort();
    expect(statuses).toEqual([200, 429]);
    const refused = results.find((r) => r.res.status === 429)!;
    expect(refused.json.error!.code).toBe('concurrency_limit_exceeded');
  });
});

describe('429 usage_limit_reached: cool down, fail over, explain', () => {
  it('cools the account until its reset and finishes the request on the next account', async () => {
    await scriptFaults(t.simUrl, [
      { kind: 'usage_limit', resetsInSeconds: 600, match: { accountId: simKey(made.alpha!) } },
    ]);
    const { res, requestId } = await post(gen);
    expect(res.status).toBe(200);
    expect((await simCalls()).map((c) => c.accountId)).toEqual([
      simKey(made.alpha!),
      simKey(made.beta!),
    ]);
    expect((await usageRow(t, requestId)).upstream_account_id).toBe(made.beta!.id);

    const alpha = (await accounts.get(made.alpha!.id))!;
    expect(alpha.cooldownUntil! - Date.now()).toBeGreaterThan(590_000);
    expect(alpha.cooldownReason).toMatch(/usage limit reached/);

    // While alpha cools, requests go straight to beta.
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
    await post(gen);
    expect((await simCalls()).map((c) => c.accountId)).toEqual([simKey(made.beta!)]);
  });

  it('answers 429 with retry-after at the earliest reset when every account is cooling', async () => {
    await scriptFaults(t.simUrl, [
      { kind: 'usage_limit', resetsInSeconds: 300, match: { accountId: simKey(made.alpha!) } },
      { kind: 'usage_limit', resetsInSeconds: 120, match: { accountId: simKey(made.beta!) } },
    ]);
    const first = await post(gen);
    expect(first.res.status).toBe(429);
    expect(first.json.error!.code).toBe('usage_limit_reached');
    const retryAfter = Number(first.res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(110);
    expect(retryAfter).toBeLessThanOrEqual(121);
    // The pool is now empty: the next request is answered without calling the upstream.
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
    const second = await post(gen);
    expect(second.res.status).toBe(429);
    expect(second.json.error!.message).toMatch(/cooling down/);
    expect(await simCalls()).toHaveLength(0);
  });

  it('never cools an account for a deterministic 400', async () => {
    await scriptFaults(t.simUrl, [
      {
        kind: 'http_error',
        status: 400,
        code: 'invalid_value',
        param: 'quality',
        message: 'quality not available on this plan',
        match: { accountId: simKey(made.alpha!) },
      },
    ]);
    const { res, json } = await post(gen);
    expect(res.status).toBe(400);
    expect(json.error!.message).toMatch(/Upstream rejected the request: quality not available/);
    expect(json.error!.param).toBe('quality');
    expect((await accounts.get(made.alpha!.id))!.cooldownUntil).toBeNull();
  });

  it('retries a 503 on another account', async () => {
    await scriptFaults(t.simUrl, [
      { kind: 'http_error', status: 503, match: { accountId: simKey(made.alpha!) } },
    ]);
    const { res } = await post(gen);
    expect(res.status).toBe(200);
    const calls = await simCalls();
    expect(calls.map((c) => [c.accountId, c.status])).toEqual([
      [simKey(made.alpha!), 503],
      [simKey(made.beta!), 200],
    ]);
  });
});

describe('delivered means delivered', () => {
  it('lenient mode passes a downgraded image on with headers that say so', async () => {
    await (await settingsIn(t.db)).set(SETTINGS.strictDelivery, false);
    await scriptFaults(t.simUrl, [{ kind: 'downgrade' }]);
    const { res, json, requestId } = await post({ ...gen, size: '2048x2048' });
    expect(res.status).toBe(200);
    const delivered = res.headers.get('x-atelier-delivered-size')!;
    expect(delivered).not.toBe('2048x2048');
    expect(res.headers.get('x-atelier-requested-size')).toBe('2048x2048');
    expect(json.size).toBe(delivered);
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({ size: '2048x2048', delivered_size: delivered });
  });
});

describe('the fallback ladder (spec 7.3)', () => {
  it('goes down to 1536x1024 medium and upscales locally to the requested 3840x2160', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'no_image', times: 2 }]);
    const { res, json, requestId } = await post(
      { ...gen, size: '3840x2160', quality: 'high', output_format: 'jpeg' },
      t.key,
      {
        'x-atelier-fallback': 'ladder',
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-fallback-step')).toBe('3');
    const image = await decodeB64(json.data![0]!.b64_json);
    expect([image.width, image.height, image.format]).toEqual([3840, 2160, 'jpeg']);
    expect((await simCalls()).map((c) => [c.size, c.quality])).toEqual([
      ['3840x2160', 'high'],
      ['3840x2160', 'medium'],
      ['1536x1024', 'medium'],
    ]);
    expect((await usageRow(t, requestId)).fallback_step).toBe('3');
  });

  it('is off unless asked: the same failure is a 502', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'no_image' }]);
    expect((await post({ ...gen, size: '3840x2160', quality: 'high' })).res.status).toBe(502);
  });

  it('lets a key opt in, which reaches sizes its group cannot deliver directly', async () => {
    const small = await t.newKey('small-ladder', { group: 'smallonly', fallbackLadder: true });
    const { res, json } = await post(
      { ...gen, size: '3840x2160', output_format: 'webp' },
      small.key,
    );
    expect(res.status).toBe(200);
    const image = await decodeB64(json.data![0]!.b64_json);
    expect([image.width, image.height]).toEqual([3840, 2160]);
  });
});

describe('client disconnects', () => {
  it('the upstream call finishes and the usage record is written once with the tokens', async () => {
    const leaving = await t.newKey('leaving');
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 400 }]);
    const controller = new AbortController();
    const client = new OpenAI({ apiKey: leaving.key, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const recorded = new Promise<string>((resolve) => {
      const onUsage = (id: string) => {
        const row = t.db
          .prepare('SELECT api_key_id FROM usage_records WHERE request_id = ?')
          .get(id) as { api_key_id: string } | undefined;
        if (row?.api_key_id !== leaving.id) return;
        t.gateway.events.off('usage', onUsage);
        resolve(id);
      };
      t.gateway.events.on('usage', onUsage);
    });
    const pending = client.images
      .generate(gen as never, { signal: controller.signal })
      .catch((e: unknown) => e);
    // Abort once the upstream call is under way (the simulator's call log is the signal).
    while ((await simCalls()).length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    const row = await usageRow(t, await recorded);
    expect(row.status).toBe(499);
    expect(row.error_code).toBe('client_cancelled');
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.images).toBe(1);
    const count = t.db
      .prepare('SELECT COUNT(*) AS c FROM usage_records WHERE api_key_id = ?')
      .get(leaving.id) as { c: number };
    expect(count.c).toBe(1);
  });
});
