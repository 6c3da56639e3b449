import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  openAccountsRepository,
  type AccountsRepository,
} from '../../src/gateway/accounts/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import type { AccountRecord } from '../../src/gateway/core/domain';
import type { AccountsResponse } from '../../src/shared/admin';
import { runCliAsync } from '../support/cli';
import {
  clearFaults,
  scriptFaults,
  simInit,
  startTestGateway,
  studioLogin,
  usageRow,
  type TestGateway,
} from '../support/gateway';

/**
 * Outages (502/503/504, network failures) rest an account only on evidence across requests, and
 * briefly; a caller who then finds every account resting hears 503 with retry-after, never spec
 * 7's 429 usage_limit_reached (which is for used-up usage windows).
 */

let t: TestGateway;
let accounts: AccountsRepository;
let only: AccountRecord;
let key: string;
let groups = 0;

const gen = { model: 'image-model-2', prompt: 'a paper boat', size: '1024x1024', quality: 'low' };

async function post() {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(gen),
  });
  const json = (await res.json()) as { error?: { code: string; message: string; type: string } };
  return { res, json, requestId: res.headers.get('x-request-id')! };
}

async function simCallCount(): Promise<number> {
  return (
    (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
      calls: unknown[];
    }
  ).calls.length;
}

const outages = (times: number) => [
  { kind: 'http_error', status: 503, times, match: { accountId: `sim-${only.id}` } },
];

/**
 * Each test gets a fresh group of one account: outage evidence lives in the gateway's memory, and
 * a test must not inherit another's.
 */
async function freshAccount(): Promise<void> {
  const name = `single-${++groups}`;
  only = await accounts.create({
    name,
    kind: 'simulator',
    tier: 'pro',
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
  key = (await t.newKey(name, { group: name })).key;
}

beforeAll(async () => {
  // A rest long enough that a loaded machine cannot outlast it between two requests of a test.
  t = await startTestGateway({ cooldowns: { outageRestMs: 120_000 } });
  accounts = await openAccountsRepository(sqliteEngine(t.db));
});
beforeEach(() => freshAccount());
afterEach(async () => {
  await clearFaults(t.simUrl);
  await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
});
afterAll(async () => {
  await t.close();
});

describe('one request cannot shut a group', () => {
  it('three 503s of one request are its own 502; the next caller is served', async () => {
    await scriptFaults(t.simUrl, outages(3));
    const failed = await post();
    expect(failed.res.status).toBe(502);
    expect(failed.json.error!.code).toBe('upstream_http_error');
    expect(await simCallCount()).toBe(3);
    expect((await accounts.get(only.id))!.cooldownUntil).toBeNull();
    const next = await post();
    expect(next.res.status).toBe(200);
  });
});

describe('outages seen by three requests rest the account briefly', () => {
  it('rests briefly with its own reason, and callers get 503 with retry-after, not 429', async () => {
    await scriptFaults(t.simUrl, outages(20));
    expect((await post()).res.status).toBe(502);
    expect((await post()).res.status).toBe(502);
    // The third request's first failure is the third request's evidence: the account rests,
    // and the request, finding no account left, hears why.
    const third = await post();
    expect(third.res.status).toBe(503);
    expect(third.json.error!.code).toBe('upstream_unavailable');
    expect(await simCallCount()).toBe(7);

    const rested = (await accounts.get(only.id))!;
    expect(rested.cooldownKind).toBe('outage');
    expect(rested.cooldownUntil! - Date.now()).toBeGreaterThan(60_000);
    expect(rested.cooldownUntil! - Date.now()).toBeLessThanOrEqual(120_000);
    expect(rested.cooldownReason).toMatch(
      /resting 120 s after upstream errors on 3 different requests in a row; last: HTTP 503/,
    );

    // Every other caller: 503 with a short retry-after, the upstream not called at all.
    await clearFaults(t.simUrl);
    const client = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const error = (await client.images
      .generate(gen as never)
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(503);
    expect(error.code).toBe('upstream_unavailable');
    expect(error.message).toMatch(/resting briefly after repeated upstream errors/);
    const retryAfter = Number(error.headers?.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(await simCallCount()).toBe(7);
    const row = await usageRow(t, error.headers!.get('x-request-id')!);
    expect(row).toMatchObject({ status: 503, error_code: 'upstream_unavailable' });

    // The admin API and the CLI say why it rests.
    const studio = await studioLogin(t);
    const admin = await studio.json<AccountsResponse>('/api/admin/accounts');
    const view = admin.accounts.find((a) => a.id === only.id)!;
    expect(view.cooldownKind).toBe('outage');
    expect(view.status.detail).toMatch(/resting 120 s after upstream errors/);
    const listed = await runCliAsync(['accounts', 'list', '--data-dir', t.dataDir]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/resting 120 s after upstream errors on 3 different requests/);
    const json = JSON.parse(
      (await runCliAsync(['accounts', 'list', '--json', '--data-dir', t.dataDir])).stdout,
    ) as Array<{ name: string; cooldownKind: string; status: { state: string } }>;
    expect(json.find((a) => a.name === only.name)).toMatchObject({
      cooldownKind: 'outage',
      status: { state: 'cooling' },
    });
  });

  it('a used-up usage window is still 429 usage_limit_reached', async () => {
    await scriptFaults(t.simUrl, [
      { kind: 'usage_limit', resetsInSeconds: 900, match: { accountId: `sim-${only.id}` } },
    ]);
    const first = await post();
    expect(first.res.status).toBe(429);
    expect(first.json.error!.code).toBe('usage_limit_reached');
    const second = await post();
    expect(second.res.status).toBe(429);
    expect(second.json.error!.code).toBe('usage_limit_reached');
    expect((await accounts.get(only.id))!.cooldownKind).toBe('usage_limit');
  });
});

// Last: these make retries, and the gateway's retry budget (10 a minute plus 20 % of requests)
// must not decide the call counts asserted above.
describe('evidence', () => {
  it('a success between failed requests ends the run of evidence', async () => {
    await scriptFaults(t.simUrl, outages(6));
    expect((await post()).res.status).toBe(502);
    expect((await post()).res.status).toBe(502);
    expect((await post()).res.status).toBe(200);
    await scriptFaults(t.simUrl, outages(3));
    expect((await post()).res.status).toBe(502);
    expect((await accounts.get(only.id))!.cooldownUntil).toBeNull();
  });
});
