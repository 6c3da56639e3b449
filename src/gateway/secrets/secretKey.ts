import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { SecretStoreError } from './errors';

/** AES-256: the key is 32 bytes. */
const KEY_BYTES = 32;

/**
 * The key the database's secrets are sealed with (secrets/databaseStore.ts). `id` names it
 * without revealing it (an HMAC of a fixed label under the key), so a row sealed under another
 * key is told apart from a changed row; the key's bytes live only in this object's closure-free
 * Buffer and never print.
 */
export interface SecretKey {
  readonly id: string;
  readonly bytes: Buffer;
}

/**
 * Reads a key written as 64 hex digits or as base64 (standard or URL-safe, padded or not) of 32
 * bytes; surrounding whitespace (a key file's newline) is ignored. Anything else is refused with
 * a message that says what a key looks like and never quotes the text given.
 */
export function parseSecretKey(text: string, source: string): SecretKey {
  const trimmed = text.trim();
  let bytes: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) bytes = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(trimmed)) {
    const decoded = Buffer.from(trimmed.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
    if (decoded.length === KEY_BYTES) bytes = decoded;
  }
  if (!bytes) {
    throw new SecretStoreError(
      'bad_config',
      `${source} is not a secret key: it must be 32 random bytes as base64 (44 characters) or ` +
        'hex (64 digits). Make one with: atelier secrets generate-key',
    );
  }
  return secretKeyOf(bytes);
}

export function secretKeyOf(bytes: Buffer): SecretKey {
  const id = createHmac('sha256', bytes).update('atelier secret key id').digest('hex').slice(0, 16);
  const key = { id, bytes: Buffer.from(bytes) };
  // A key that is logged by accident shows its id only.
  Object.defineProperty(key, Symbol.for('nodejs.util.inspect.custom'), {
    value: () => `SecretKey { id: '${id}' }`,
  });
  Object.defineProperty(key, 'toJSON', { value: () => ({ id }) });
  return key;
}

/** A fresh key as base64, for `atelier secrets generate-key`. */
export function generateSecretKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

/**
 * The key from the environment: `ATELIER_SECRET_KEY` (the key itself) or
 * `ATELIER_SECRET_KEY_FILE` (a file holding it, readable by its owner only), not both; null when
 * neither is set. `prefix` reads another pair (ATELIER_NEW_SECRET_KEY for a rotation).
 */
export function secretKeyFromEnv(
  env: NodeJS.ProcessEnv,
  prefix = 'ATELIER_SECRET_KEY',
): SecretKey | null {
  const given = env[prefix];
  const file = env[`${prefix}_FILE`];
  if (given && file) {
    throw new SecretStoreError('bad_config', `Set ${prefix} or ${prefix}_FILE, not both.`);
  }
  if (given) return parseSecretKey(given, prefix);
  if (file) return readSecretKeyFile(file, `${prefix}_FILE`);
  return null;
}

export function readSecretKeyFile(file: string, source: string): SecretKey {
  let text: string;
  try {
    // A key others can read is no secret: refused, as ssh refuses such a private key.
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
      throw new SecretStoreError(
        'bad_config',
        `${source}: ${file} can be read by other users; run: chmod 600 ${file}`,
      );
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof SecretStoreError) throw error;
    throw new SecretStoreError(
      'bad_config',
      `${source}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  return parseSecretKey(text, `${source} (${file})`);
}
