import type { SqlEngine, SqlQueries } from '../storage/engine';
import { SecretStoreError } from './errors';
import { open, seal, wrongKey, type Sealed, type SecretRow } from './sealing';
import { resealSharedKeys } from './sharedKeys';
import type { SecretKey } from './secretKey';
import type { SecretStore } from './types';

/*
 * Secrets as sealed rows of the `secrets` table (migration 18), for a gateway with no OS keychain:
 * a server, and every instance of a team gateway, which must all read the same accounts' secrets.
 *
 * Each value is sealed with AES-256-GCM under the process's key (ATELIER_SECRET_KEY or its file),
 * with a nonce of its own, and the secret's name as additional data: a row copied onto another
 * name, or changed in any byte, does not authenticate and is refused. A row says which key sealed
 * it (the key's id, never the key), so a gateway given another key says so instead of reading
 * garbage or calling a good row tampered.
 */

export interface DatabaseSecretStore extends SecretStore {
  readonly kind: 'database';
  /** Refuses at start when a stored secret was sealed under another key. */
  probe(): Promise<void>;
}

export function createDatabaseSecretStore(opts: {
  engine: SqlEngine;
  key: SecretKey;
  now?: () => number;
}): DatabaseSecretStore {
  const { engine, key } = opts;
  const now = opts.now ?? Date.now;
  return {
    kind: 'database',
    async get(name) {
      checkName(name);
      const row = await engine.get<SecretRow>(
        'SELECT key_id, nonce, sealed FROM secrets WHERE name = ?',
        [name],
      );
      return row ? open(name, row, key) : null;
    },
    async set(name, value) {
      checkName(name);
      await writeSealed(engine, name, seal(name, value, key), now());
    },
    async delete(name) {
      checkName(name);
      await engine.run('DELETE FROM secrets WHERE name = ?', [name]);
    },
    async probe() {
      const others = await engine.all<{ key_id: string; count: number }>(
        'SELECT key_id, COUNT(*) AS count FROM secrets WHERE key_id <> ? GROUP BY key_id',
        [key.id],
      );
      const first = others[0];
      if (first) {
        throw wrongKey(`${first.count} secret(s) in the database are`, first.key_id, key);
      }
    },
  };
}

/**
 * Seals every secret again under `next`, in one transaction: all of them or, if any cannot be
 * opened with `current` (another key, a changed row), none. Rows already under `next` stay as
 * they are. Returns how many were sealed again.
 */
export async function rotateSecretKey(
  engine: SqlEngine,
  current: SecretKey,
  next: SecretKey,
  now: () => number = Date.now,
): Promise<number> {
  if (current.id === next.id) {
    throw new SecretStoreError('bad_config', 'The new secret key is the key in use.');
  }
  return engine.transaction(async (tx) => {
    // PostgreSQL: no instance writes a secret under the old key while the rows are rewritten.
    const lock = tx.kind === 'postgres' ? ' FOR UPDATE' : '';
    const rows = await tx.all<SecretRow & { name: string }>(
      `SELECT name, key_id, nonce, sealed FROM secrets ORDER BY name${lock}`,
    );
    let count = 0;
    for (const row of rows) {
      if (row.key_id === next.id) continue;
      const value = open(row.name, row, current);
      await writeSealed(tx, row.name, seal(row.name, value, next), now());
      count += 1;
    }
    // The keys the instances share (the URL-image signing key) are sealed with the same key.
    return count + (await resealSharedKeys(tx, current, next));
  });
}

async function writeSealed(
  db: SqlQueries,
  name: string,
  sealed: Sealed,
  at: number,
): Promise<void> {
  await db.run(
    `INSERT INTO secrets (name, key_id, nonce, sealed, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET key_id = excluded.key_id, nonce = excluded.nonce,
       sealed = excluded.sealed, updated_at = excluded.updated_at`,
    [name, sealed.keyId, sealed.nonce, sealed.sealed, at],
  );
}

function checkName(name: string): void {
  if (!name) throw new SecretStoreError('bad_config', 'A secret needs a non-empty name.');
}
