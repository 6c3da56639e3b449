// Against the real Secret Service (npm test runs vitest under scripts/with-keyring.sh, a private
// gnome-keyring). Nothing here is mocked, and nothing is skipped: with no keychain, these fail.
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { KeychainUnavailableError, SecretStoreError, keychainUnavailableMessage } from './errors';
import { createKeychainStore, type KeychainStore } from './keychainStore';

const stores: KeychainStore[] = [];
const written: [KeychainStore, string][] = [];

/** A store under a service of its own, so parallel test files and runs never meet. */
function testStore(): KeychainStore {
  const store = createKeychainStore({ service: `AtelierTest-${randomUUID()}` });
  stores.push(store);
  return store;
}

async function put(store: KeychainStore, name: string, value: string): Promise<void> {
  written.push([store, name]);
  await store.set(name, value);
}

afterAll(async () => {
  await Promise.all(written.map(([store, name]) => store.delete(name)));
});

describe('createKeychainStore against the real Secret Service', () => {
  it('finds a working keychain (else: run the tests under scripts/with-keyring.sh)', async () => {
    await expect(testStore().probe()).resolves.toBeUndefined();
  });

  it('stores, reads back, overwrites and deletes a secret', async () => {
    const store = testStore();
    expect(store.kind).toBe('keychain');
    await put(store, 'account-1', 'sk-first');
    expect(await store.get('account-1')).toBe('sk-first');
    await put(store, 'account-1', 'sk-second');
    expect(await store.get('account-1')).toBe('sk-second');
    await store.delete('account-1');
    expect(await store.get('account-1')).toBeNull();
  });

  it('answers null for a secret that was never stored, and deleting it is no error', async () => {
    const store = testStore();
    expect(await store.get('never-stored')).toBeNull();
    await expect(store.delete('never-stored')).resolves.toBeUndefined();
  });

  it('keeps unicode names and values exactly', async () => {
    const store = testStore();
    const value = 'clé 🔑 — 鍵 — ключ — "quoted" \\ back';
    await put(store, 'compte/é/🔑', value);
    expect(await store.get('compte/é/🔑')).toBe(value);
  });

  it('keeps a large JSON value (~8 KB, like OAuth tokens) intact', async () => {
    const store = testStore();
    const value = JSON.stringify({
      type: 'oauth',
      accessToken: 'a'.repeat(3000),
      refreshToken: randomUUID(),
      idToken: `${'x'.repeat(5000)}.${randomUUID()}`,
      expiresAt: Date.now(),
    });
    expect(value.length).toBeGreaterThan(8000);
    await put(store, 'big', value);
    expect(await store.get('big')).toBe(value);
  });

  it('keeps two services apart under the same secret name', async () => {
    const a = testStore();
    const b = testStore();
    await put(a, 'shared-name', 'value-a');
    expect(await b.get('shared-name')).toBeNull();
    await put(b, 'shared-name', 'value-b');
    await a.delete('shared-name');
    expect(await a.get('shared-name')).toBeNull();
    expect(await b.get('shared-name')).toBe('value-b');
  });

  it('leaves nothing behind after a probe', async () => {
    const store = testStore();
    await store.probe();
    const { findCredentialsAsync } = await import('@napi-rs/keyring');
    expect(await findCredentialsAsync(store.service)).toEqual([]);
  });

  it('refuses an empty name or service before reaching the keychain', async () => {
    await expect(testStore().get('')).rejects.toBeInstanceOf(SecretStoreError);
    expect(() => createKeychainStore({ service: '' })).toThrow(SecretStoreError);
  });

  it('shows no secret when inspected', async () => {
    const store = testStore();
    await put(store, 'inspected', 'sk-do-not-show');
    expect(inspect(store, { depth: 5, showHidden: true })).not.toContain('sk-do-not-show');
  });
});

describe('KeychainUnavailableError', () => {
  it('says how to fix it on Linux, and how to opt into the encrypted file', () => {
    const message = keychainUnavailableMessage('no D-Bus session', 'linux');
    expect(message).toContain('no D-Bus session');
    expect(message).toMatch(/gnome-keyring/);
    expect(message).toMatch(/KeePassXC/);
    expect(message).toMatch(/desktop session/);
    expect(message).toMatch(/ATELIER_SECRET_STORE=encrypted-file/);
    expect(message).toMatch(/ATELIER_SECRET_PASSPHRASE/);
  });

  it('speaks of each platform in its own terms', () => {
    expect(keychainUnavailableMessage('x', 'darwin')).toMatch(/macOS Keychain/);
    expect(keychainUnavailableMessage('x', 'win32')).toMatch(/Credential Manager/);
    const err = new KeychainUnavailableError('locked', 'linux');
    expect(err).toBeInstanceOf(SecretStoreError);
    expect(err.code).toBe('keychain_unavailable');
    expect(err.name).toBe('KeychainUnavailableError');
  });
});
