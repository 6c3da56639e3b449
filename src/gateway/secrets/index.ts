import { createHash } from 'node:crypto';
import path from 'node:path';
import { createEncryptedFileStore } from './encryptedFileStore';
import { SecretStoreError } from './errors';
import { createKeychainStore } from './keychainStore';
import type { SecretStore } from './types';

/** The keychain service every Atelier secret is filed under (what the user sees in Seahorse etc.). */
export const KEYCHAIN_SERVICE = 'Atelier';
export const SECRET_FILE = 'secrets.enc';

/**
 * The store for this data dir: the OS keychain, unless the user opted into the encrypted file with
 * ATELIER_SECRET_STORE=encrypted-file (and ATELIER_SECRET_PASSPHRASE). When the keychain cannot be
 * used this throws KeychainUnavailableError, whose message says how to fix it: there is no silent
 * fallback, least of all to plaintext.
 */
export async function openSecretStore(opts: {
  dataDir: string;
  env: NodeJS.ProcessEnv;
}): Promise<SecretStore> {
  const choice = opts.env.ATELIER_SECRET_STORE || 'keychain';
  if (choice === 'encrypted-file') {
    const passphrase = opts.env.ATELIER_SECRET_PASSPHRASE;
    if (!passphrase) {
      throw new SecretStoreError(
        'bad_config',
        'ATELIER_SECRET_STORE=encrypted-file needs the passphrase in ATELIER_SECRET_PASSPHRASE.',
      );
    }
    const store = createEncryptedFileStore({
      file: path.join(opts.dataDir, SECRET_FILE),
      passphrase,
    });
    await store.probe();
    return store;
  }
  if (choice !== 'keychain') {
    throw new SecretStoreError(
      'bad_config',
      `ATELIER_SECRET_STORE must be "keychain" or "encrypted-file", not "${choice}".`,
    );
  }
  const store = createKeychainStore({ service: KEYCHAIN_SERVICE });
  await store.probe();
  return store;
}

/**
 * The gateway's secret store, opened on first use (`given` when there is one): a gateway that
 * never needs a secret never asks for the keychain.
 */
export function secretStoreOnFirstUse(opts: {
  given: SecretStore | undefined;
  dataDir: string;
  env: NodeJS.ProcessEnv;
}): () => Promise<SecretStore> {
  let store: Promise<SecretStore> | null = null;
  return () =>
    (store ??= opts.given
      ? Promise.resolve(opts.given)
      : openSecretStore({ dataDir: opts.dataDir, env: opts.env }));
}

/**
 * The name an account's secret is stored under. One keychain serves every data dir of the user
 * (a second profile, the tests' temp dirs), so names carry a short hash of the resolved data dir:
 * the same account id in two data dirs never shares, or overwrites, a secret.
 */
export function secretNameFor(dataDir: string, accountId: string): string {
  if (!accountId) throw new SecretStoreError('bad_config', 'An account id is needed.');
  const dir = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  return `data-${dir}/account/${accountId}`;
}
