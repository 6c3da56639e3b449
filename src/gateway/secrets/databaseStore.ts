import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SqlEngine, SqlQueries } from '../storage/engine';
import { SecretStoreError } from './errors';
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

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Binds a sealed value to this format and to its name. */
const AAD_PREFIX = 'atelier secret v1\0';

interface SecretRow {
  key_id: string;
  nonce: Buffer;
  sealed: Buffer;
}

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
    return count;
  });
}

interface Sealed {
  keyId: string;
  nonce: Buffer;
  sealed: Buffer;
}

function seal(name: string, value: string, key: SecretKey): Sealed {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, nonce);
  cipher.setAAD(Buffer.from(AAD_PREFIX + name, 'utf8'));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return { keyId: key.id, nonce, sealed: Buffer.concat([body, cipher.getAuthTag()]) };
}

function open(name: string, row: SecretRow, key: SecretKey): string {
  if (row.key_id !== key.id) throw wrongKey(`Secret "${name}" in the database is`, row.key_id, key);
  const refused = () =>
    new SecretStoreError(
      'decrypt_failed',
      `Secret "${name}" did not authenticate: its database row was changed, or belongs to ` +
        'another secret. It was not used; store the secret again.',
    );
  if (row.nonce.length !== NONCE_BYTES || row.sealed.length < TAG_BYTES) throw refused();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, row.nonce);
    decipher.setAAD(Buffer.from(AAD_PREFIX + name, 'utf8'));
    decipher.setAuthTag(row.sealed.subarray(row.sealed.length - TAG_BYTES));
    const body = row.sealed.subarray(0, row.sealed.length - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    throw refused();
  }
}

/** `subject` names what was found, with its verb: 'Secret "a" in the database is'. */
function wrongKey(subject: string, storedId: string, key: SecretKey): SecretStoreError {
  return new SecretStoreError(
    'wrong_key',
    `${subject} sealed under secret key ${storedId}, but this process was ` +
      `given key ${key.id}. Set ATELIER_SECRET_KEY (or ATELIER_SECRET_KEY_FILE) to the key they ` +
      'were stored with; after a rotation (atelier secrets rotate-key) that is the new key.',
  );
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
