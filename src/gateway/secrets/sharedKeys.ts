import { randomBytes } from 'node:crypto';
import type { SqlEngine, SqlQueries } from '../storage/engine';
import { SecretStoreError } from './errors';
import { open, seal, type Sealed } from './sealing';
import type { SecretKey } from './secretKey';

/*
 * Keys every instance on one database shares (`shared_keys`, migration 17): the signing key of
 * `response_format: "url"` image URLs, so a URL one instance made is valid on any. With a
 * database secret key (ATELIER_SECRET_KEY[_FILE]) a shared key is stored sealed, like the
 * upstream secrets (sealing.ts): whoever reads the database (a backup, a replica) cannot sign
 * URLs. `atelier secrets rotate-key` seals them again with the secrets. Without a secret key the
 * value is the key in hex, as before.
 */

/** A sealed value: `sealed:v1:<key id>:<nonce hex>:<ciphertext and tag hex>`; a plain one is hex. */
const SEALED_PREFIX = 'sealed:v1:';

/** Sealed under the name in its own namespace: a secrets row cannot stand in for it. */
const sealedName = (name: string) => `shared_keys/${name}`;

function sealedText(name: string, value: Buffer, key: SecretKey): string {
  const sealed = seal(sealedName(name), value.toString('hex'), key);
  return `${SEALED_PREFIX}${sealed.keyId}:${sealed.nonce.toString('hex')}:${sealed.sealed.toString('hex')}`;
}

function parseSealed(text: string): Sealed | null {
  if (!text.startsWith(SEALED_PREFIX)) return null;
  const [keyId, nonce, sealed] = text.slice(SEALED_PREFIX.length).split(':');
  if (!keyId || nonce === undefined || sealed === undefined) return null;
  return { keyId, nonce: Buffer.from(nonce, 'hex'), sealed: Buffer.from(sealed, 'hex') };
}

/** The key a stored value holds: opened with `key` when sealed. */
function keyOf(name: string, text: string, key: SecretKey | null): Buffer {
  if (!text.startsWith(SEALED_PREFIX)) return Buffer.from(text, 'hex');
  const sealed = parseSealed(text);
  if (!key || !sealed) {
    throw new SecretStoreError(
      sealed ? 'bad_config' : 'decrypt_failed',
      sealed
        ? `The shared key "${name}" is sealed under secret key ${sealed.keyId}: set ATELIER_SECRET_KEY ` +
            '(or ATELIER_SECRET_KEY_FILE) to that key.'
        : `The shared key "${name}" is not a sealed value: its database row was changed.`,
    );
  }
  const row = { key_id: sealed.keyId, nonce: sealed.nonce, sealed: sealed.sealed };
  return Buffer.from(open(sealedName(name), row, key), 'hex');
}

/**
 * A key every instance on this database shares (32 random bytes), made once by whichever asks
 * first: the insert that loses the race changes nothing, and both read the winner's. With
 * `secretKey` it is stored sealed, and a key stored in plain text before is sealed now.
 */
export async function sharedKey(
  engine: SqlEngine,
  name: string,
  now: number,
  secretKey: SecretKey | null = null,
): Promise<Buffer> {
  const made = randomBytes(32);
  await engine.run(
    'INSERT INTO shared_keys (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    [name, secretKey ? sealedText(name, made, secretKey) : made.toString('hex'), now],
  );
  const row = await engine.get<{ value: string }>('SELECT value FROM shared_keys WHERE name = ?', [
    name,
  ]);
  if (!row) throw new Error(`the shared key '${name}' was not stored`);
  const value = keyOf(name, row.value, secretKey);
  if (secretKey && !row.value.startsWith(SEALED_PREFIX)) {
    // Only the plain row read: an instance that sealed it meanwhile keeps its own sealing.
    await engine.run('UPDATE shared_keys SET value = ? WHERE name = ? AND value = ?', [
      sealedText(name, value, secretKey),
      name,
      row.value,
    ]);
  }
  return value;
}

/**
 * Seals every shared key sealed under `current` again under `next` (inside the rotation's
 * transaction: with the secrets, or not at all). Plain ones stay plain until an instance with
 * a secret key asks for them. Returns how many.
 */
export async function resealSharedKeys(
  tx: SqlQueries,
  current: SecretKey,
  next: SecretKey,
): Promise<number> {
  const lock = tx.kind === 'postgres' ? ' FOR UPDATE' : '';
  const rows = await tx.all<{ name: string; value: string }>(
    `SELECT name, value FROM shared_keys ORDER BY name${lock}`,
  );
  let count = 0;
  for (const row of rows) {
    const sealed = parseSealed(row.value);
    if (!sealed || sealed.keyId === next.id) continue;
    const value = keyOf(row.name, row.value, current);
    await tx.run('UPDATE shared_keys SET value = ? WHERE name = ?', [
      sealedText(row.name, value, next),
      row.name,
    ]);
    count += 1;
  }
  return count;
}
