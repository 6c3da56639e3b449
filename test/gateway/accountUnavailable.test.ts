import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { openAccountsRepository } from '../../src/gateway/accounts/repository';
import { databasePath } from '../../src/gateway/core/dataDir';
import type { SecretStore } from '../../src/gateway/secrets/types';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { apiKeyAccount } from '../support/accounts';
import { tempDir } from '../support/gateway';

// A store that fails as a locked or unreachable keychain does. The real keychain daemon is tested
// in src/gateway/secrets; reproducing a lock from here would need a second desktop session.
const lockedKeychain: SecretStore = {
  kind: 'keychain',
  get: () => Promise.reject(new Error('the keychain is locked: unlock it and try again')),
  set: () => Promise.reject(new Error('locked')),
  delete: () => Promise.reject(new Error('locked')),
};

const dataDir = tempDir('atelier-locked-');
let gateway: Gateway;
let db: Db;
let key: string;

beforeAll(async () => {
  db = openDatabase(databasePath(dataDir));
  key = (await createKeysRepository(sqliteEngine(db)).create({ name: 'app' })).key;
  await (
    await openAccountsRepository(sqliteEngine(db))
  ).create(apiKeyAccount({ name: 'relay', secretName: 'data-x/account/relay' }));
  gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    simulatorSpeed: 0,
    secrets: lockedKeychain,
    log: () => undefined,
  });
  await gateway.listen();
});
afterAll(async () => {
  await gateway.close(1_000);
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('an account whose credentials cannot be loaded', () => {
  it('answers 503 with the reason and leaves the account in service', async () => {
    const res = await fetch(`${gateway.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model-2', prompt: 'x' }),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('account_unavailable');
    expect(body.error.message).toMatch(/relay.*keychain is locked/);
    const account = (await (await openAccountsRepository(sqliteEngine(db))).find('relay'))!;
    expect([account.enabled, account.disabledReason, account.cooldownUntil]).toEqual([
      true,
      null,
      null,
    ]);
  });
});
