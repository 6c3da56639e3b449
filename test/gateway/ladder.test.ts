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
  simInit,
  startTestGateway,
  usageCount,
  usageRow,
  type TestGateway,
} from '../support/gateway';

/**
 * The fallback ladder of spec 7.3 under failure, against the real simulator: every step failing
 * in turn, with one account (the same account serves every step) and with two, and the usage
 * record of each outcome. Budget: 6 upstream calls and the large-image timeout (docs/dispatch.md).
 */

let t: TestGateway;
let accounts: AccountsRepository;
/** The accounts of the running test, by role ('lone', 'first', 'second'). */
let made: Record<string, AccountRecord> = {};
let groups = 0;

/**
 * A fresh group for each test, so no test inherits another's outage evidence (which the gateway
 * keeps in memory, as it should), with the ladder on for its key unless told otherwise.
 */
async function group(roles: Array<[string, string]>, ladder = true): Promise<string> {
  const name = `g${++groups}`;
  made = {};
  for (const [role, tier] of roles) {
    made[role] = await accounts.create({
      name: `${name}-${role}`,
      kind: 'simulator',
      tier,
      groupName: name,
      capacity: 4,
      enabled: true,
      modelMap: {},
      maxPixels: 8_294_400,
      baseUrl: 'builtin',
      issuer: null,
      bridgeModel: null,
      upstreamAccountId: null,
      secretName: null,
    });
  }
  return (await t.newKey(name, { group: name, fallbackLadder: ladder })).key;
}
const one = () => group([['lone', 'pro']]);
const two = (ladder = true) =>
  group(
    [
      ['first', 'pro'],
      ['second', 'plus'],
    ],
    ladder,
  );

/** The simulator knows each simulated account by its key. */
const sim = (a: AccountRecord) => `sim-${a.id}`;
const failing = (a: AccountRecord, times: number, status = 503) => ({
  kind: 'http_error',
  status,
  message: 'upstream overloaded',
  times,
  match: { accountId: sim(a) },
});

interface SimCall {
  accountId?: string;
  status?: number;
  size?: string;
  quality?: string;
}

async function simCalls(): Promise<SimCall[]> {
  return (
    (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
      calls: SimCall[];
    }
  ).calls;
}

/** Each call as [account name, size, quality, status]. */
async function callLog(): Promise<Array<[string, string, string, number]>> {
  const names = new Map(Object.entries(made).map(([role, a]) => [sim(a), role]));
  return (await simCalls()).map((c) => [
    names.get(c.accountId ?? '') ?? String(c.accountId),
    c.size ?? '',
    c.quality ?? '',
    c.status ?? 0,
  ]);
}

const big = {
  model: 'image-model-2',
  prompt: 'a lighthouse at dusk',
  size: '3840x2160',
  quality: 'high',
  output_format: 'jpeg',
};

async function post(key: string, body: Record<string, unknown> = big) {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as {
    error?: { code: string; message: string; type: string };
    data?: Array<{ b64_json: string }>;
    usage?: { total_tokens: number };
  };
  return { res, json, requestId: res.headers.get('x-request-id')! };
}

/**
 * A gateway per describe: the gateway's retry budget (10 retries a minute plus 20 % of requests)
 * is shared by everything it serves, and the call counts asserted here must not depend on what
 * other tests spent of it.
 */
function withGateway(): void {
  beforeAll(async () => {
    t = await startTestGateway();
    accounts = await openAccountsRepository(sqliteEngine(t.db));
  });
  afterEach(async () => {
    await clearFaults(t.simUrl);
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
    const settings = await settingsIn(t.db);
    await settings.reset(SETTINGS.timeoutNormalMs);
    await settings.reset(SETTINGS.timeoutLargeMs);
  });
  afterAll(async () => {
    await t.close();
  });
}

async function expectReady(...names: string[]) {
  for (const name of names) expect((await accounts.get(made[name]!.id))!.cooldownUntil).toBeNull();
}

describe('one account: every step runs on it', () => {
  withGateway();

  it('step 1 fails (503, retried once): step 2 delivers at medium', async () => {
    const key = await one();
    await scriptFaults(t.simUrl, [failing(made.lone!, 2)]);
    const { res, json, requestId } = await post(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-fallback-step')).toBe('2');
    expect(await callLog()).toEqual([
      ['lone', '3840x2160', 'high', 503],
      ['lone', '3840x2160', 'high', 503],
      ['lone', '3840x2160', 'medium', 200],
    ]);
    const image = await decodeB64(json.data![0]!.b64_json);
    expect([image.width, image.height]).toEqual([3840, 2160]);
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({
      status: 200,
      fallback_step: '2',
      images: 1,
      upstream_account_id: made.lone!.id,
      total_tokens: json.usage!.total_tokens,
    });
    expect(row.total_tokens).toBeGreaterThan(0);
    await expectReady('lone');
  });

  it('steps 1 and 2 fail: step 3 delivers 1536x1024 medium upscaled to the asked size', async () => {
    const key = await one();
    await scriptFaults(t.simUrl, [failing(made.lone!, 4)]);
    const { res, json, requestId } = await post(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-fallback-step')).toBe('3');
    expect(await callLog()).toEqual([
      ['lone', '3840x2160', 'high', 503],
      ['lone', '3840x2160', 'high', 503],
      ['lone', '3840x2160', 'medium', 503],
      ['lone', '3840x2160', 'medium', 503],
      ['lone', '1536x1024', 'medium', 200],
    ]);
    const image = await decodeB64(json.data![0]!.b64_json);
    expect([image.width, image.height, image.format]).toEqual([3840, 2160, 'jpeg']);
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({ status: 200, fallback_step: '3', images: 1 });
    expect(row.delivered_size).toBe('3840x2160');
    await expectReady('lone');
  });

  it('every step fails: 6 calls, a 502 with the upstream reason, one usage record', async () => {
    const key = await one();
    await scriptFaults(t.simUrl, [failing(made.lone!, 10)]);
    const { res, json, requestId } = await post(key);
    expect(res.status).toBe(502);
    expect(json.error!.code).toBe('upstream_http_error');
    expect(json.error!.message).toMatch(/HTTP 503/);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const calls = await callLog();
    expect(calls.map((c) => c.slice(1, 3))).toEqual([
      ['3840x2160', 'high'],
      ['3840x2160', 'high'],
      ['3840x2160', 'medium'],
      ['3840x2160', 'medium'],
      ['1536x1024', 'medium'],
      ['1536x1024', 'medium'],
    ]);
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({
      status: 502,
      error_code: 'upstream_http_error',
      images: 0,
      total_tokens: 0,
      upstream_account_id: made.lone!.id,
    });
    expect(usageCount(t.db, requestId)).toBe(1);
    // One request's failures are no evidence against the account: the next request is served.
    await expectReady('lone');
    await clearFaults(t.simUrl);
    expect((await post(key)).res.status).toBe(200);
  });

  it('a failed step that was billed (a size mismatch) is counted in the record of the answer', async () => {
    const key = await one();
    await scriptFaults(t.simUrl, [
      failing(made.lone!, 2),
      { kind: 'downgrade', match: { accountId: sim(made.lone!) } },
    ]);
    const { res, json, requestId } = await post(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-fallback-step')).toBe('3');
    const plain = await post(key, { ...big, size: '1536x1024', quality: 'medium' });
    // The reply and the record hold step 3's tokens plus the refused step 2 image's.
    expect(json.usage!.total_tokens).toBeGreaterThan(
      (plain.json.usage as { total_tokens: number }).total_tokens,
    );
    expect((await usageRow(t, requestId)).total_tokens).toBe(json.usage!.total_tokens);
  });
});

describe('two accounts', () => {
  withGateway();

  it('step 1 fails on both accounts: step 2 delivers, neither account rests', async () => {
    const key = await two();
    await scriptFaults(t.simUrl, [failing(made.first!, 1), failing(made.second!, 1)]);
    const { res, requestId } = await post(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-fallback-step')).toBe('2');
    const calls = await callLog();
    expect(calls.slice(0, 2)).toEqual([
      ['first', '3840x2160', 'high', 503],
      ['second', '3840x2160', 'high', 503],
    ]);
    expect(calls.slice(2).map((c) => c.slice(1))).toEqual([['3840x2160', 'medium', 200]]);
    expect(await usageRow(t, requestId)).toMatchObject({ status: 200, fallback_step: '2' });
    await expectReady('first', 'second');
  });

  it('steps 1 and 2 fail on both: step 3 delivers', async () => {
    const key = await two();
    await scriptFaults(t.simUrl, [failing(made.first!, 2), failing(made.second!, 2)]);
    const { res, requestId } = await post(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-fallback-step')).toBe('3');
    const calls = await callLog();
    expect(calls.map((c) => c.slice(1))).toEqual([
      ['3840x2160', 'high', 503],
      ['3840x2160', 'high', 503],
      ['3840x2160', 'medium', 503],
      ['3840x2160', 'medium', 503],
      ['1536x1024', 'medium', 200],
    ]);
    // Each failed step was tried on both accounts.
    expect(new Set(calls.slice(0, 2).map((c) => c[0]))).toEqual(new Set(['first', 'second']));
    expect(new Set(calls.slice(2, 4).map((c) => c[0]))).toEqual(new Set(['first', 'second']));
    expect(await usageRow(t, requestId)).toMatchObject({ status: 200, fallback_step: '3' });
    await expectReady('first', 'second');
  });

  it('every step fails: 6 calls over both accounts, a 502 and its record', async () => {
    const key = await two();
    await scriptFaults(t.simUrl, [failing(made.first!, 10), failing(made.second!, 10)]);
    const { res, json, requestId } = await post(key);
    expect(res.status).toBe(502);
    expect(json.error!.code).toBe('upstream_http_error');
    const calls = await callLog();
    expect(calls).toHaveLength(6);
    expect(new Set(calls.map((c) => c[0]))).toEqual(new Set(['first', 'second']));
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({ status: 502, images: 0, total_tokens: 0 });
    // The record names every account the failed steps used.
    expect(new Set(row.upstream_account_id!.split(','))).toEqual(
      new Set([made.first!.id, made.second!.id]),
    );
    await expectReady('first', 'second');
  });

  it('a usage limit at step 1 moves to the other account within the step', async () => {
    const key = await two();
    await scriptFaults(t.simUrl, [
      { kind: 'usage_limit', resetsInSeconds: 600, match: { accountId: sim(made.first!) } },
    ]);
    const { res, requestId } = await post(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-fallback-step')).toBe('1');
    expect((await callLog()).map((c) => [c[0], c[2], c[3]])).toEqual([
      ['first', 'high', 429],
      ['second', 'high', 200],
    ]);
    expect((await usageRow(t, requestId)).upstream_account_id).toBe(made.second!.id);
    expect((await accounts.get(made.first!.id))!.cooldownKind).toBe('usage_limit');
  });

  it('without the ladder, the same outages are a 502 after 3 calls', async () => {
    const key = await two(false);
    await scriptFaults(t.simUrl, [failing(made.first!, 10), failing(made.second!, 10)]);
    const { res } = await post(key);
    expect(res.status).toBe(502);
    expect(await simCalls()).toHaveLength(3);
  });
});

describe('the time budget', () => {
  withGateway();

  it('a step that runs out of time leaves the last step its share, all within the large timeout', async () => {
    const settings = await settingsIn(t.db);
    // Generous numbers: the last step's 6 s must hold even on a loaded machine.
    await settings.set(SETTINGS.timeoutNormalMs, 6_000);
    await settings.set(SETTINGS.timeoutLargeMs, 16_000);
    // Step 1 hangs: it is cut at 16 s - 6 s kept for the last step; step 2 then has no time left.
    const key = await one();
    await scriptFaults(t.simUrl, [
      { kind: 'slow', delayMs: 60_000, match: { accountId: sim(made.lone!) } },
    ]);
    const started = Date.now();
    const { res, json, requestId } = await post(key);
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.headers.get('x-atelier-fallback-step')).toBe('3');
    expect((await simCalls()).map((c) => [c.size, c.quality])).toEqual([
      ['3840x2160', 'high'],
      ['1536x1024', 'medium'],
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(9_900);
    // Within the budget, plus the local upscale and encode of a 4K JPEG on a slow machine.
    expect(elapsed).toBeLessThan(16_000 + 10_000);
    const image = await decodeB64(json.data![0]!.b64_json);
    expect([image.width, image.height]).toEqual([3840, 2160]);
    expect(await usageRow(t, requestId)).toMatchObject({ status: 200, fallback_step: '3' });
  });
});
