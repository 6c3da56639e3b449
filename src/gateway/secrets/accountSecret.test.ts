import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountSecret, writeAccountSecret } from './accountSecret';
import { createEncryptedFileStore } from './encryptedFileStore';
import type { AccountSecret, SecretStore } from './types';

// A real store (the encrypted file: these tests are about the JSON, not about the keychain).
let dir: string;
let store: SecretStore;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'atelier-account-secret-'));
  store = createEncryptedFileStore({ file: path.join(dir, 'secrets.enc'), passphrase: 'p' });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const oauth: AccountSecret = {
  type: 'oauth',
  accessToken: 'at-SECRET-access',
  refreshToken: 'rt-SECRET-refresh',
  idToken: 'id-SECRET-token',
  expiresAt: 1_900_000_000_000,
};

describe('readAccountSecret / writeAccountSecret', () => {
  it('round-trips both kinds of account secret', async () => {
    await writeAccountSecret(store, 'acct-key', { type: 'api_key', apiKey: 'sk-SECRET-key' });
    await writeAccountSecret(store, 'acct-oauth', oauth);
    expect(await readAccountSecret(store, 'acct-key')).toEqual({
      type: 'api_key',
      apiKey: 'sk-SECRET-key',
    });
    expect(await readAccountSecret(store, 'acct-oauth')).toEqual(oauth);
    expect(await readAccountSecret(store, 'acct-none')).toBeNull();
  });

  it('stores known fields only', async () => {
    const extra = { ...oauth, note: 'not part of the schema' } as AccountSecret;
    await writeAccountSecret(store, 'acct-extra', extra);
    expect(JSON.parse((await store.get('acct-extra'))!)).toEqual(oauth);
  });

  it('refuses to write an invalid secret, naming fields but never values', async () => {
    const bad = { type: 'oauth', accessToken: '', refreshToken: 'rt-SECRET-x', idToken: 7 };
    const write = writeAccountSecret(store, 'acct-bad', bad as unknown as AccountSecret);
    await expect(write).rejects.toMatchObject({ code: 'bad_secret' });
    const message = await write.catch((err: Error) => err.message);
    expect(message).toMatch(/accessToken/);
    expect(message).toMatch(/idToken/);
    expect(message).not.toContain('rt-SECRET-x');
    expect(await store.get('acct-bad')).toBeNull();
  });

  it('refuses a stored value that is not an account secret, without echoing it', async () => {
    await store.set('acct-garbage', 'sk-SECRET-plain-not-json');
    await expect(readAccountSecret(store, 'acct-garbage')).rejects.toMatchObject({
      code: 'bad_secret',
      message: expect.not.stringContaining('sk-SECRET'),
    });
    await store.set('acct-shape', JSON.stringify({ type: 'password', password: 'SECRET' }));
    await expect(readAccountSecret(store, 'acct-shape')).rejects.toMatchObject({
      code: 'bad_secret',
      message: expect.not.stringContaining('SECRET'),
    });
  });

  it('hands out secrets that do not show themselves in logs, yet read and write as usual', async () => {
    await writeAccountSecret(store, 'acct-shown', oauth);
    const secret = (await readAccountSecret(store, 'acct-shown'))!;
    const shown = [
      inspect(secret),
      inspect({ nested: { secret } }, { depth: 10 }),
      String(secret),
      `${secret}`,
      JSON.stringify({ secret }),
    ].join('\n');
    expect(shown).not.toMatch(/SECRET/);
    expect(shown).toContain('oauth');
    expect(secret.type === 'oauth' && secret.refreshToken).toBe('rt-SECRET-refresh');

    await writeAccountSecret(store, 'acct-copy', secret);
    expect(await readAccountSecret(store, 'acct-copy')).toEqual(oauth);
  });
});
