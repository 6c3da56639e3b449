import { limitsOf, type KeyLimits } from '../limits/keyLimits';
import type { ApiKeyRecord, KeysRepository } from './repository';

/** What the request path needs of a key (its limits included). */
export interface AuthenticatedKey {
  id: string;
  group: string;
  /** The key opted into the quality/size fallback ladder. */
  fallbackLadder: boolean;
  /** Requests this key may have in flight at once; null for no cap. */
  concurrencyLimit: number | null;
  /** Budget, requests per minute, images per day, expiry (enforced by http/keyLimits.ts and the image service). */
  limits: KeyLimits;
}

export interface KeyAuthenticator {
  authenticate(presented: string): Promise<AuthenticatedKey | null>;
  /** Records the key's use (at most once a minute); a failed write is only logged. */
  touch(id: string, now: number): void;
  /** The built-in Studio key (made on first use); null when it was disabled by hand. */
  studioKey(): Promise<AuthenticatedKey | null>;
}

/** The key check of /v1 over the keys repository and the Studio key, written once. */
export function keyAuthenticator(
  keys: Pick<KeysRepository, 'authenticate' | 'touch'>,
  studioKey: { get(): Promise<ApiKeyRecord | null> },
  log: (line: string) => void,
): KeyAuthenticator {
  return {
    authenticate: async (presented) => authenticated(await keys.authenticate(presented)),
    touch: (id, at) => {
      // Off the request's path: last-used is a minute-precise label, not worth a wait.
      keys.touch(id, at).catch((error: Error) => {
        log(`last use of key ${id} could not be recorded: ${error.message}`);
      });
    },
    studioKey: async () => authenticated(await studioKey.get()),
  };
}

function authenticated(record: ApiKeyRecord | null): AuthenticatedKey | null {
  if (!record) return null;
  const { id, group, fallbackLadder, concurrencyLimit } = record;
  return { id, group, fallbackLadder, concurrencyLimit, limits: limitsOf(record) };
}
