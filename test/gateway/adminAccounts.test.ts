import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  AccountLoginState,
  AccountResponse,
  AccountsResponse,
  AccountView,
} from '../../src/shared/admin';
import { openAccountsRepository } from '../../src/gateway/accounts/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { openSecretStore } from '../../src/gateway/secrets';
import { readAccountSecret } from '../../src/gateway/secrets/accountSecret';
import {
  clearFaults,
  scriptFaults,
  startTestGateway,
  studioLogin,
  usageRow,
  type StudioClient,
  type TestGateway,
  simInit,
} from '../support/gateway';

// Runs against the real keychain (gnome-keyring under scripts/with-keyring.sh, as `npm test` does).
let t: TestGateway;
let studio: StudioClient;

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
});
afterEach(async () => {
  await clearFaults(t.simUrl);
  await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
});
afterAll(async () => {
  await t.close();
});

async function simCalls(): Promise<Array<{ accountId?: string }>> {
  return (
    (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
      calls: Array<{ accountId?: string }>;
    }
  ).calls;
}

async function generate(key: string, body: Record<string, unknown> = {}) {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt: 'a kite', quality: 'low', ...body }),
  });
  await res.arrayBuffer();
  return { status: res.status, requestId: res.headers.get('x-request-id')! };
}

const add = (body: Record<string, unknown>) =>
  studio.json<AccountResponse>('/api/admin/accounts', { method: 'POST', body });
const list = () => studio.json<AccountsResponse>('/api/admin/accounts');
const find = async (id: string) => (await list()).accounts.find((a) => a.id === id)!;

async function refused(path: string, method: string, body?: unknown) {
  const res = await studio.fetch(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { error: { code: string; param: string | null } };
  return { status: res.status, code: json.error.code, param: json.error.param };
}

describe('accounts', () => {
  it('says when only the built-in simulator serves', async () => {
    expect(await list()).toEqual({ accounts: [], simulatorOnly: true });
  });

  it('adds simulator accounts with their status and live load', async () => {
    const { account } = await add({ kind: 'simulator', name: 'sim-a', tier: 'pro', capacity: 3 });
    expect(account).toMatchObject({
      name: 'sim-a',
      kind: 'simulator',
      tier: 'pro',
      groupName: 'default',
      capacity: 3,
      enabled: true,
      status: { state: 'ready', detail: '' },
      load: 0,
    });
    expect(account).not.toHaveProperty('secretName');
    expect((await list()).simulatorOnly).toBe(false);

    // Load is live: while a request is at the upstream, the account carries its weight.
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 300 }]);
    const pending = generate(t.key);
    while ((await simCalls()).length === 0) await new Promise((r) => setTimeout(r, 10));
    expect((await find(account.id)).load).toBe(1);
    expect((await pending).status).toBe(200);
    expect((await find(account.id)).load).toBe(0);
  });

  it('adds an API-key account whose key goes to the keychain and is used upstream', async () => {
    const apiKey = `sim-relay-${Date.now()}`;
    const { account } = await add({
      kind: 'api_key',
      name: 'relay',
      baseUrl: `${t.simUrl}/v1`,
      apiKey,
      group: 'relay',
    });
    expect(account).toMatchObject({
      kind: 'api_key',
      tier: 'api',
      capacity: 4,
      groupName: 'relay',
    });
    expect(JSON.stringify(await list())).not.toContain(apiKey);
    const stored = (await (await openAccountsRepository(sqliteEngine(t.db))).get(account.id))!;
    const secrets = await openSecretStore({ dataDir: t.dataDir, env: process.env });
    expect(await readAccountSecret(secrets, stored.secretName!)).toMatchObject({
      type: 'api_key',
      apiKey,
    });

    const relayKey = await t.newKey('relay-app', { group: 'relay' });
    const { status, requestId } = await generate(relayKey.key);
    expect(status).toBe(200);
    expect((await simCalls()).map((c) => c.accountId)).toEqual([apiKey]);
    expect((await usageRow(t, requestId)).upstream_account_id).toBe(account.id);

    // Removing the account removes its secret too.
    expect(await studio.json(`/api/admin/accounts/${account.id}`, { method: 'DELETE' })).toEqual({
      ok: true,
    });
    expect(await secrets.get(stored.secretName!)).toBeNull();
    expect((await list()).accounts.map((a) => a.id)).not.toContain(account.id);
  });

  it('refuses what it cannot add, naming the field', async () => {
    expect(
      await refused('/api/admin/accounts', 'POST', { kind: 'simulator', name: 'sim-a' }),
    ).toMatchObject({ status: 400, param: 'name' });
    expect(
      await refused('/api/admin/accounts', 'POST', {
        kind: 'api_key',
        name: 'bad',
        baseUrl: 'not a url',
        apiKey: 'k',
      }),
    ).toMatchObject({ status: 400, param: 'baseUrl' });
    expect(
      await refused('/api/admin/accounts', 'POST', {
        kind: 'api_key',
        name: 'nokey',
        baseUrl: 'https://x.example/v1',
      }),
    ).toMatchObject({ status: 400, param: 'apiKey' });
    expect(
      await refused('/api/admin/accounts', 'POST', { kind: 'oauth', name: 'o' }),
    ).toMatchObject({
      status: 400,
      param: 'kind',
    });
    expect(
      await refused('/api/admin/accounts/acct_none', 'PATCH', { enabled: false }),
    ).toMatchObject({
      status: 404,
    });
  });

  it('shows a cooldown with its reason and end after a scripted 429, and clears it', async () => {
    const a = (await add({ kind: 'simulator', name: 'cool-a', tier: 'pro', group: 'cool' }))
      .account;
    const b = (await add({ kind: 'simulator', name: 'cool-b', tier: 'plus', group: 'cool' }))
      .account;
    await scriptFaults(t.simUrl, [
      { kind: 'usage_limit', resetsInSeconds: 600, match: { accountId: `sim-${a.id}` } },
    ]);
    const key = await t.newKey('cool-app', { group: 'cool' });
    const { status, requestId } = await generate(key.key);
    expect(status).toBe(200);
    expect((await usageRow(t, requestId)).upstream_account_id).toBe(b.id);

    const cooling = await find(a.id);
    expect(cooling.status.state).toBe('cooling');
    expect(cooling.status.detail).toMatch(/^back in 10 min .*usage limit reached/);
    expect(cooling.cooldownReason).toMatch(/usage limit reached/);
    expect(cooling.cooldownUntil! - Date.now()).toBeGreaterThan(590_000);
    expect((await find(b.id)).status.state).toBe('ready');

    const cleared = await studio.json<AccountResponse>(`/api/admin/accounts/${a.id}`, {
      method: 'PATCH',
      body: { clearCooldown: true },
    });
    expect(cleared.account).toMatchObject({ cooldownUntil: null, status: { state: 'ready' } });
  });

  it('changes capacity, tier, group and enabled', async () => {
    const { account } = await add({ kind: 'simulator', name: 'tune' });
    const path = `/api/admin/accounts/${account.id}`;
    const disabled = await studio.json<AccountResponse>(path, {
      method: 'PATCH',
      body: { enabled: false, capacity: 8, tier: 'team', group: 'night', maxPixels: 2_000_000 },
    });
    expect(disabled.account).toMatchObject({
      enabled: false,
      capacity: 8,
      tier: 'team',
      groupName: 'night',
      maxPixels: 2_000_000,
      status: { state: 'disabled' },
    });
    // Enabling also clears an out-of-service reason: the user is saying "try it again".
    await (
      await openAccountsRepository(sqliteEngine(t.db))
    ).update(account.id, { disabledReason: 'sign-in revoked' });
    const enabled = await studio.json<AccountResponse>(path, {
      method: 'PATCH',
      body: { enabled: true },
    });
    expect(enabled.account).toMatchObject({
      enabled: true,
      disabledReason: null,
      status: { state: 'ready' },
    });
    expect(await refused(path, 'PATCH', { capacity: 0 })).toMatchObject({
      status: 400,
      param: 'capacity',
    });
    expect(await refused(path, 'PATCH', { secretName: 'x' })).toMatchObject({
      status: 400,
      param: 'secretName',
    });
  });
});

describe('OAuth sign-in from the studio', () => {
  /** Polls the sign-in's state as the studio does (a person is signing in meanwhile). */
  async function outcome(loginId: string): Promise<AccountLoginState> {
    for (;;) {
      const state = await studio.json<AccountLoginState>(`/api/admin/accounts/login/${loginId}`);
      if (state.state !== 'waiting') return state;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('runs the loopback PKCE login and adds a subscription account with its tokens in the keychain', async () => {
    const started = await studio.json<{ loginId: string; authorizeUrl: string }>(
      '/api/admin/accounts/login',
      {
        method: 'POST',
        body: {
          name: 'my-plan',
          issuer: t.simUrl,
          baseUrl: `${t.simUrl}/backend-api/codex`,
          bridgeModel: 'agent-model-1',
          group: 'plan',
        },
      },
    );
    expect(started.authorizeUrl).toMatch(/\/oauth\/authorize\?.*code_challenge=/);
    expect(
      (await studio.json<AccountLoginState>(`/api/admin/accounts/login/${started.loginId}`)).state,
    ).toBe('waiting');
    // What the desktop shell opens for this sign-in: exactly the address the studio was given.
    expect(t.gateway.signInUrl(started.loginId)).toBe(started.authorizeUrl);
    // "The browser": the issuer signs the person in and redirects to the gateway's callback.
    const page = await fetch(`${started.authorizeUrl}&login_hint=artist%40example.com`);
    expect(page.status).toBe(200);

    const done = await outcome(started.loginId);
    expect(done.state).toBe('done');
    // A finished sign-in has no page left to open.
    expect(t.gateway.signInUrl(started.loginId)).toBeNull();
    const account = done.account as AccountView;
    expect(account).toMatchObject({
      name: 'my-plan',
      kind: 'subscription',
      tier: 'pro',
      groupName: 'plan',
      capacity: 2,
      maxPixels: 1_638_400,
      bridgeModel: 'agent-model-1',
      status: { state: 'ready' },
    });
    expect(account.upstreamAccountId).toBeTruthy();
    const stored = (await (await openAccountsRepository(sqliteEngine(t.db))).get(account.id))!;
    const secret = await readAccountSecret(
      await openSecretStore({ dataDir: t.dataDir, env: process.env }),
      stored.secretName!,
    );
    expect(secret?.type).toBe('oauth');

    // And it serves the plan's group.
    const key = await t.newKey('plan-app', { group: 'plan' });
    const { status, requestId } = await generate(key.key);
    expect(status).toBe(200);
    expect((await usageRow(t, requestId)).upstream_account_id).toBe(account.id);
  });

  it('reports a failed sign-in, and an unknown one is a 404', async () => {
    const started = await studio.json<{ loginId: string; authorizeUrl: string }>(
      '/api/admin/accounts/login',
      { method: 'POST', body: { name: 'denied', issuer: t.simUrl } },
    );
    const callback = new URL(started.authorizeUrl).searchParams.get('redirect_uri')!;
    const state = new URL(started.authorizeUrl).searchParams.get('state')!;
    const page = await fetch(`${callback}?state=${state}&error=access_denied`);
    expect(page.status).toBe(400);
    const failed = await outcome(started.loginId);
    expect(failed).toEqual({ state: 'failed', error: expect.stringMatching(/access_denied/) });
    expect(t.gateway.signInUrl(started.loginId)).toBeNull();
    expect(t.gateway.signInUrl('login_nope')).toBeNull();
    expect((await refused('/api/admin/accounts/login/login_nope', 'GET')).status).toBe(404);
  });
});
