import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AccountResponse,
  AccountsResponse,
  AccountTestResponse,
} from '../../src/shared/admin';
import {
  startTestGateway,
  studioLogin,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

// Runs against the real keychain (gnome-keyring under scripts/with-keyring.sh, as `npm test` does).
let t: TestGateway;
let studio: StudioClient;
let deadUrl: string;

/** A loopback port that was just free: nothing listens there, so a connection is refused. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
  deadUrl = `http://127.0.0.1:${await closedPort()}/v1`;
});
afterAll(async () => {
  await t.close();
});

async function generate(): Promise<number> {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt: 'a kite', quality: 'low' }),
  });
  await res.arrayBuffer();
  return res.status;
}

const list = () => studio.json<AccountsResponse>('/api/admin/accounts');

describe('an account at a dead address (issue 22, defect 12)', () => {
  let id: string;

  it('reads failing with its reason once a request could not reach it, not ready', async () => {
    const { account } = await studio.json<AccountResponse>('/api/admin/accounts', {
      method: 'POST',
      body: { kind: 'api_key', name: 'dead relay', baseUrl: deadUrl, apiKey: 'sk-dead' },
    });
    id = account.id;
    expect(account.status.state).toBe('ready');
    expect(await generate()).toBeGreaterThanOrEqual(500);
    const seen = (await list()).accounts.find((a) => a.id === id)!;
    expect(seen.status.state).toBe('failing');
    expect(seen.status.detail).toMatch(/ECONNREFUSED/);
  });

  it('has a connection test that says why it fails, and one that passes on the simulator', async () => {
    const failed = await studio.json<AccountTestResponse>(`/api/admin/accounts/${id}/test`, {
      method: 'POST',
    });
    expect(failed.ok).toBe(false);
    expect(failed.detail).toMatch(/ECONNREFUSED/);
    expect(failed.account.status.state).toBe('failing');

    const { account: sim } = await studio.json<AccountResponse>('/api/admin/accounts', {
      method: 'POST',
      body: { kind: 'simulator', name: 'spare simulator', group: 'spare' },
    });
    const passed = await studio.json<AccountTestResponse>(`/api/admin/accounts/${sim.id}/test`, {
      method: 'POST',
    });
    expect(passed).toMatchObject({ ok: true, account: { status: { state: 'ready' } } });
    await studio.json(`/api/admin/accounts/${sim.id}`, { method: 'DELETE' });

    const missing = await studio.fetch('/api/admin/accounts/acct_nope/test', { method: 'POST' });
    expect(missing.status).toBe(404);
  });

  it('once disabled, leaves the built-in simulator serving (no account is enabled)', async () => {
    await studio.json(`/api/admin/accounts/${id}`, { method: 'PATCH', body: { enabled: false } });
    expect(await generate()).toBe(200);
    expect((await list()).simulatorOnly).toBe(true);
    const status = (await (await fetch(`${t.url}/api/status`)).json()) as {
      upstream: { kind: string };
    };
    expect(status.upstream.kind).toBe('simulator');

    // Enabled again, the account serves (and fails) again: the simulator steps back.
    await studio.json(`/api/admin/accounts/${id}`, { method: 'PATCH', body: { enabled: true } });
    expect(await generate()).toBeGreaterThanOrEqual(500);
    expect((await list()).simulatorOnly).toBe(false);
  });
});
