import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecretStoreInChild } from '../../../test/support/secretsChild';
import { readAccountSecret, writeAccountSecret } from './accountSecret';
import { KEYCHAIN_SERVICE, openSecretStore, secretNameFor } from './index';
import { createKeychainStore } from './keychainStore';

// The keychain cases use the real Secret Service (scripts/with-keyring.sh); "no keychain" is shown
// in child processes, the only place where the D-Bus session can really be missing.
let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'atelier-open-secrets-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let count = 0;
async function freshDataDir(): Promise<string> {
  const dir = path.join(root, `data-${++count}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

describe('openSecretStore', () => {
  it('opens the keychain by default', async () => {
    const dataDir = await freshDataDir();
    const store = await openSecretStore({ dataDir, env: {} });
    expect(store.kind).toBe('keychain');
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('opens the encrypted file only when asked, at <dataDir>/secrets.enc', async () => {
    const dataDir = await freshDataDir();
    const env = { ATELIER_SECRET_STORE: 'encrypted-file', ATELIER_SECRET_PASSPHRASE: 'pass' };
    const store = await openSecretStore({ dataDir, env });
    expect(store.kind).toBe('encrypted-file');
    await store.set('a', 'sk-alpha');
    expect(await readdir(dataDir)).toEqual(['secrets.enc']);

    const wrong = { ...env, ATELIER_SECRET_PASSPHRASE: 'not the pass' };
    await expect(openSecretStore({ dataDir, env: wrong })).rejects.toMatchObject({
      code: 'decrypt_failed',
    });
  });

  it('refuses an encrypted file without a passphrase, and unknown store names', async () => {
    const dataDir = await freshDataDir();
    await expect(
      openSecretStore({ dataDir, env: { ATELIER_SECRET_STORE: 'encrypted-file' } }),
    ).rejects.toMatchObject({ code: 'bad_config', message: /ATELIER_SECRET_PASSPHRASE/ });
    await expect(
      openSecretStore({ dataDir, env: { ATELIER_SECRET_STORE: 'plaintext' } }),
    ).rejects.toMatchObject({ code: 'bad_config' });
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('refuses, with the fix in the message, when there is no D-Bus session', async () => {
    const dataDir = await freshDataDir();
    const env = {
      ...process.env,
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(root, 'no-bus-here')}`,
      ATELIER_SECRET_PASSPHRASE: 'set, but not opted into',
    };
    const outcome = await openSecretStoreInChild({ dataDir, env });
    expect(outcome).toMatchObject({ ok: false, name: 'KeychainUnavailableError' });
    expect(!outcome.ok && outcome.message).toMatch(/gnome-keyring.*ATELIER_SECRET_STORE/s);
    // No fallback of any kind: nothing was written.
    expect(await readdir(dataDir)).toEqual([]);
  });

  it.runIf(process.platform === 'linux')(
    'refuses when the bus has a Secret Service that cannot keep secrets (none unlocked)',
    async () => {
      // A bus of its own, where gnome-keyring starts on demand with no unlocked keyring: reads
      // still answer "not found", so only the probe's write shows that nothing can be stored.
      const dataDir = await freshDataDir();
      const home = path.join(root, `home-${count}`);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        HOME: home,
        XDG_DATA_HOME: path.join(home, 'data'),
        XDG_RUNTIME_DIR: path.join(home, 'runtime'),
        XDG_CACHE_HOME: path.join(home, 'cache'),
        XDG_CONFIG_HOME: path.join(home, 'config'),
      };
      delete env.DBUS_SESSION_BUS_ADDRESS;
      await mkdir(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
      const outcome = await openSecretStoreInChild({ dataDir, env, ownBus: true });
      expect(outcome).toMatchObject({ ok: false, name: 'KeychainUnavailableError' });
      expect(await readdir(dataDir)).toEqual([]);
    },
  );
});

describe('secretNameFor', () => {
  it('is stable for one data dir, however it is spelled', () => {
    const dir = path.join(root, 'profile');
    expect(secretNameFor(dir, 'acc_1')).toBe(secretNameFor(`${dir}/../profile/`, 'acc_1'));
    expect(secretNameFor(dir, 'acc_1')).toMatch(/^data-[0-9a-f]{12}\/account\/acc_1$/);
    expect(secretNameFor(dir, 'acc_2')).not.toBe(secretNameFor(dir, 'acc_1'));
  });

  it('keeps the same account id in two data dirs apart in one keychain', async () => {
    const first = secretNameFor(path.join(root, 'first'), 'acc_1');
    const second = secretNameFor(path.join(root, 'second'), 'acc_1');
    expect(first).not.toBe(second);

    const keychain = createKeychainStore({ service: KEYCHAIN_SERVICE });
    try {
      await writeAccountSecret(keychain, first, { type: 'api_key', apiKey: 'sk-first' });
      await writeAccountSecret(keychain, second, { type: 'api_key', apiKey: 'sk-second' });
      expect(await readAccountSecret(keychain, first)).toEqual({
        type: 'api_key',
        apiKey: 'sk-first',
      });
      expect(await readAccountSecret(keychain, second)).toEqual({
        type: 'api_key',
        apiKey: 'sk-second',
      });
    } finally {
      await keychain.delete(first);
      await keychain.delete(second);
    }
  });

  it('needs an account id', () => {
    expect(() => secretNameFor(root, '')).toThrow(/account id/);
  });
});
