import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretStoreError } from './errors';
import type { SecretKey } from './secretKey';

/*
 * AES-256-GCM sealing under the database secret key (ATELIER_SECRET_KEY or its file): the
 * secrets table's rows (databaseStore.ts) and the keys the instances share (sharedKeys.ts). Each
 * value has a nonce of its own and its name as additional data, so a value copied onto another
 * name, or changed in any byte, does not authenticate. A sealed value says which key sealed it
 * (the key's id, never the key).
 */

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Binds a sealed value to this format and to its name. */
const AAD_PREFIX = 'atelier secret v1\0';

export interface SecretRow {
  key_id: string;
  nonce: Buffer;
  sealed: Buffer;
}

export interface Sealed {
  keyId: string;
  nonce: Buffer;
  sealed: Buffer;
}

export function seal(name: string, value: string, key: SecretKey): Sealed {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, nonce);
  cipher.setAAD(Buffer.from(AAD_PREFIX + name, 'utf8'));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return { keyId: key.id, nonce, sealed: Buffer.concat([body, cipher.getAuthTag()]) };
}

export function open(name: string, row: SecretRow, key: SecretKey): string {
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
export function wrongKey(subject: string, storedId: string, key: SecretKey): SecretStoreError {
  return new SecretStoreError(
    'wrong_key',
    `${subject} sealed under secret key ${storedId}, but this process was ` +
      `given key ${key.id}. Set ATELIER_SECRET_KEY (or ATELIER_SECRET_KEY_FILE) to the key they ` +
      'were stored with; after a rotation (atelier secrets rotate-key) that is the new key.',
  );
}
