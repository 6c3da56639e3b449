import { randomUUID } from 'node:crypto';
import { AsyncEntry, type EntryOptions } from '@napi-rs/keyring';
import { KeychainUnavailableError, SecretStoreError } from './errors';
import type { SecretStore } from './types';

export interface KeychainStore extends SecretStore {
  readonly kind: 'keychain';
  readonly service: string;
  /** Resolves when the keychain really stores and returns a value; else KeychainUnavailableError. */
  probe(): Promise<void>;
}

// Without this, keyring quietly falls back to the kernel keyring when there is no Secret Service:
// secrets would vanish at logout or reboot, and the user never chose that store.
const ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } };

// keyring reports every failure as a GenericFailure; only the message says what happened. These
// are its wordings for "there is no store to talk to" (no bus, no provider, locked, no collection).
const UNAVAILABLE =
  /^(Platform failure|Couldn't access platform storage)|No default store|no secret service provider|No DBus session/i;

/**
 * The OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows) via
 * @napi-rs/keyring: one entry per secret, `service` as the entry's service and the secret's name as
 * its account. The async entry points keep D-Bus and keychain round trips off the event loop.
 */
export function createKeychainStore(opts: { service: string }): KeychainStore {
  const { service } = opts;
  if (!service) throw new SecretStoreError('bad_config', 'A keychain store needs a service name.');

  const entry = (name: string): AsyncEntry => {
    if (!name) throw new SecretStoreError('bad_config', 'A secret needs a non-empty name.');
    // The constructor already connects (and throws when there is no D-Bus session).
    return new AsyncEntry(service, name, ENTRY_OPTIONS);
  };

  const store: KeychainStore = {
    kind: 'keychain',
    service,
    get: (name) => guard(name, () => entry(name).getPassword()),
    set: (name, value) => guard(name, () => entry(name).setPassword(value)),
    async delete(name) {
      // `false` means there was nothing to delete, which is what the caller wanted anyway.
      await guard(name, () => entry(name).deletePassword());
    },
    async probe() {
      // A read alone proves little: a locked keyring, or one with no default collection, still
      // answers "no such entry". Only a write that reads back proves secrets can be kept.
      const name = `probe-${randomUUID()}`;
      const token = randomUUID();
      try {
        await store.set(name, token);
        const back = await store.get(name);
        if (back !== token) {
          throw new KeychainUnavailableError('it did not return a value it had just stored');
        }
      } finally {
        await store.delete(name).catch(() => undefined);
      }
    },
  };
  return store;
}

async function guard<T>(name: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof SecretStoreError) throw err;
    const detail = err instanceof Error ? err.message : String(err);
    if (UNAVAILABLE.test(detail)) throw new KeychainUnavailableError(detail, process.platform, err);
    // keyring's messages describe the failure, never the secret itself.
    throw new SecretStoreError('keychain_error', `Keychain entry "${name}": ${detail}`, {
      cause: err,
    });
  }
}
