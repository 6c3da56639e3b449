import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AccountResponse, AccountsResponse } from '../../src/shared/admin';
import { createGateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openSecretStore } from '../../src/gateway/secrets';
import { generateSecretKey, parseSecretKey } from '../../src/gateway/secrets/secretKey';
import { openDatabase } from '../../src/gateway/storage/db';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import {
  startTestGateway,
  studioLogin,
  simInit,
  tempDir,
  usageRow,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';
import { runCliAsync } from '../support/cli';

// A gateway with no keychain (no Secret Service asked for): ATELIER_SECRET_KEY puts the upstream
// secrets in its own database, sealed. What a person could read afterwards (the log, the database
// files, the admin API's answers) must not hold the upstream key.
const UPSTREAM_KEY = `sk-upstream-never-shown-${Date.now()}`;
let t: TestGateway;
let studio: StudioClient;

beforeAll(async () => {
  vi.stubEnv('ATELIER_SECRET_KEY', generateSecretKey());
  vi.stubEnv('ATELIER_SECRET_STORE', '');
  t = await startTestGateway();
  studio = await studioLogin(t);
});
afterAll(async () => {
  await t.close();
  vi.unstubAllEnvs();
});

describe('secrets in the database', () => {
  it('uses a sealed API key upstream and shows it nowhere', async () => {
    const { account } = await studio.json<AccountResponse>('/api/admin/accounts', {
      method: 'POST',
      body: {
        kind: 'api_key',
        name: 'team relay',
        baseUrl: `${t.simUrl}/v1`,
        apiKey: UPSTREAM_KEY,
        group: 'relay',
      },
    });
    const { key } = await t.newKey('relay-app', { group: 'relay' });
    const res = await fetch(`${t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'a kite', quality: 'low' }),
    });
    const body = await res.text();
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id') ?? '';
    expect((await usageRow(t, requestId)).upstream_account_id).toBe(account.id);
    // The simulator names the account by the key it was sent: the sealed one, opened.
    const calls = (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
      calls: Array<{ accountId?: string }>;
    };
    expect(calls.calls.map((c) => c.accountId)).toContain(UPSTREAM_KEY);

    const sealed = t.db.prepare('SELECT name, key_id FROM secrets').all() as Array<{
      name: string;
      key_id: string;
    }>;
    expect(sealed).toHaveLength(1);
    const accounts = await studio.json<AccountsResponse>('/api/admin/accounts');
    const seen = [
      body,
      JSON.stringify(accounts),
      t.logs.join('\n'),
      ...['atelier.db', 'atelier.db-wal']
        .map((file) => path.join(t.dataDir, file))
        .filter((file) => fs.existsSync(file))
        .map((file) => fs.readFileSync(file).toString('latin1')),
    ];
    for (const text of seen) expect(text).not.toContain(UPSTREAM_KEY);
    expect(fs.readdirSync(t.dataDir)).not.toContain('secrets.enc');
  });
});

describe('a gateway given another key than its secrets were sealed with', () => {
  it('refuses to start, naming both keys, and leaves nothing running', async () => {
    const dataDir = tempDir();
    const sealedWith = generateSecretKey();
    const db = openDatabase(databasePath(dataDir));
    try {
      const store = await openSecretStore({
        dataDir,
        env: { ATELIER_SECRET_KEY: sealedWith },
        engine: sqliteEngine(db),
      });
      await store.set('data-x/account/acc_1', '{"type":"api_key","apiKey":"sk-sealed"}');
    } finally {
      db.close();
    }
    vi.stubEnv('ATELIER_SECRET_KEY', generateSecretKey());
    const started = createGateway({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      simulatorSpeed: 0,
      oauthCallbackPort: 0,
      log: () => undefined,
    });
    await expect(started).rejects.toMatchObject({
      code: 'wrong_key',
      message: expect.stringContaining(parseSecretKey(sealedWith, 'k').id) as string,
    });
    // `atelier serve` says so in one line and exits 1.
    const served = await runCliAsync(['serve', '--port', '0', '--data-dir', dataDir], {
      ATELIER_SECRET_KEY: generateSecretKey(),
    });
    expect(served.status).toBe(1);
    expect(served.stderr).toMatch(
      /^atelier serve: 1 secret\(s\) in the database are sealed under secret key [0-9a-f]{16}, but this process was given key [0-9a-f]{16}\./m,
    );
    expect(served.stderr).not.toMatch(/\n\s+at /);
    vi.stubEnv('ATELIER_SECRET_KEY', sealedWith);
    // The same folder opens with the right key: nothing of the refused start holds it.
    const gateway = await createGateway({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      simulatorSpeed: 0,
      oauthCallbackPort: 0,
      log: () => undefined,
    });
    await gateway.close(1_000);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
