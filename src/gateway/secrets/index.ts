import { createHash } from 'node:crypto';
import path from 'node:path';
import type { SqlEngine } from '../storage/engine';
import { createDatabaseSecretStore } from './databaseStore';
import { createEncryptedFileStore } from './encryptedFileStore';
import { SecretStoreError } from './errors';
import { createKeychainStore } from './keychainStore';
import { secretKeyFromEnv } from './secretKey';
import type { SecretStore } from './types';

/** The keychain service every Atelier secret is filed under (what the user sees in Seahorse etc.). */
export const KEYCHAIN_SERVICE = 'Atelier';
export const SECRET_FILE = 'secrets.enc';

const STORE_CHOICES = ['keychain', 'encrypted-file', 'database'] as const;

/**
 * Which store this process uses: ATELIER_SECRET_STORE when set; otherwise the database when the
 * gateway runs on PostgreSQL (a server has no keychain, and every instance must read the same
 * secrets) or when a secret key is given, and the OS keychain everywhere else (the desktop).
 */
export function secretStoreChoice(
  env: NodeJS.ProcessEnv,
  engine: SqlEngine | undefined,
): (typeof STORE_CHOICES)[number] {
  const chosen = env.ATELIER_SECRET_STORE;
  if (chosen) {
    const known = STORE_CHOICES.find((choice) => choice === chosen);
    if (!known) {
      throw new SecretStoreError(
        'bad_config',
        `ATELIER_SECRET_STORE must be one of ${STORE_CHOICES.join(', ')}, not "${chosen}".`,
      );
    }
    return known;
  }
  if (engine?.kind === 'postgres') return 'database';
  if (env.ATELIER_SECRET_KEY || env.ATELIER_SECRET_KEY_FILE) return 'database';
  return 'keychain';
}

/**
 * The store for this data dir (secretStoreChoice says which). When the keychain cannot be used
 * this throws KeychainUnavailableError, whose message says how to fix it; the database store
 * without a key, or with the wrong one, is an error too: there is no silent fallback, least of
 * all to plaintext.
 */
export async function openSecretStore(opts: {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** The gateway's database, where the database store keeps its sealed rows. */
  engine?: SqlEngine;
}): Promise<SecretStore> {
  const choice = secretStoreChoice(opts.env, opts.engine);
  if (choice === 'database') {
    if (!opts.engine) {
      throw new SecretStoreError('bad_config', 'The database secret store needs the database.');
    }
    const key = secretKeyFromEnv(opts.env);
    if (!key) {
      throw new SecretStoreError(
        'bad_config',
        'Secrets kept in the database need a key: set ATELIER_SECRET_KEY, or ' +
          'ATELIER_SECRET_KEY_FILE to a file holding it (make one with: atelier secrets generate-key).',
      );
    }
    const store = createDatabaseSecretStore({ engine: opts.engine, key });
    await store.probe();
    return store;
  }
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
  engine?: SqlEngine;
}): () => Promise<SecretStore> {
  let store: Promise<SecretStore> | null = null;
  return () =>
    (store ??= opts.given
      ? Promise.resolve(opts.given)
      : openSecretStore({ dataDir: opts.dataDir, env: opts.env, engine: opts.engine }));
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
