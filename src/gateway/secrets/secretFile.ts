import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { SecretStoreError } from './errors';

/*
 * The encrypted secret file's format, apart from where and how the file is written.
 *
 * File layout (all of it authenticated: the header is the cipher's additional data, so changing the
 * salt or the cost is caught like changing the ciphertext):
 *
 *   magic "ATSECRET" (8) | version 1 (1) | scrypt log2 N, r, p (3) | salt (16) | iv (12)
 *   | GCM tag (16) | AES-256-GCM ciphertext of {"v":1,"secrets":{name: value}}
 */
const MAGIC = Buffer.from('ATSECRET', 'latin1');
const VERSION = 1;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + 1 + 3 + SALT_BYTES + IV_BYTES;

// OWASP's scrypt floor for interactive use (N=2^17, r=8, p=1): about 0.3 s once per open store,
// since the key is derived once per salt. The cost sits in the header, so raising it later keeps
// old files readable. The bounds stop a doctored header from asking for gigabytes.
const COST = { log2N: 17, r: 8, p: 1 };
const COST_BOUNDS = { log2N: [14, 20], r: [1, 16], p: [1, 4] } as const;

/** Secret name -> value. A Map, so that any name, "__proto__" included, is just a name. */
export type SecretTable = Map<string, string>;

export interface Header {
  log2N: number;
  r: number;
  p: number;
  salt: Buffer;
}

/** A header for a new file: a fresh salt and today's cost. */
export function newHeader(): Header {
  return { ...COST, salt: randomBytes(SALT_BYTES) };
}

export function deriveKey(passphrase: string, h: Header): Promise<Buffer> {
  const N = 2 ** h.log2N;
  return new Promise((resolve, reject) => {
    scrypt(passphrase, h.salt, 32, { N, r: h.r, p: h.p, maxmem: 256 * N * h.r }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export function parseHeader(bytes: Buffer, file: string): Header {
  const bad = (why: string): SecretStoreError =>
    new SecretStoreError('bad_file', `${file} is not a usable Atelier secret file (${why}).`);
  if (bytes.length < HEADER_BYTES + TAG_BYTES) throw bad('too short');
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw bad('unknown format');
  if (bytes[MAGIC.length] !== VERSION) throw bad(`version ${bytes[MAGIC.length]}`);
  const at = MAGIC.length + 1;
  const [log2N, r, p] = [bytes[at] ?? 0, bytes[at + 1] ?? 0, bytes[at + 2] ?? 0];
  const within = (v: number, [lo, hi]: readonly [number, number]) => v >= lo && v <= hi;
  if (!within(log2N, COST_BOUNDS.log2N) || !within(r, COST_BOUNDS.r) || !within(p, COST_BOUNDS.p)) {
    throw bad('key derivation cost out of range');
  }
  return { log2N, r, p, salt: Buffer.from(bytes.subarray(at + 3, at + 3 + SALT_BYTES)) };
}

export function encrypt(secrets: SecretTable, h: Header, key: Buffer): Buffer {
  const header = Buffer.concat([
    MAGIC,
    Buffer.from([VERSION, h.log2N, h.r, h.p]),
    h.salt,
    // A fresh IV for every write; the key stays per salt (far below GCM's 2^32 random-IV limit).
    randomBytes(IV_BYTES),
  ]);
  const cipher = createCipheriv('aes-256-gcm', key, header.subarray(-IV_BYTES));
  cipher.setAAD(header);
  const body = Buffer.concat([
    cipher.update(JSON.stringify({ v: 1, secrets: Object.fromEntries(secrets) }), 'utf8'),
    cipher.final(),
  ]);
  return Buffer.concat([header, cipher.getAuthTag(), body]);
}

export function decrypt(bytes: Buffer, key: Buffer, file: string): SecretTable {
  const header = bytes.subarray(0, HEADER_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, header.subarray(-IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(header);
  decipher.setAuthTag(bytes.subarray(HEADER_BYTES, HEADER_BYTES + TAG_BYTES));
  let text: string;
  try {
    const body = bytes.subarray(HEADER_BYTES + TAG_BYTES);
    text = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch (err) {
    // GCM cannot tell the two apart, and neither should we: both mean "do not trust this file".
    throw new SecretStoreError(
      'decrypt_failed',
      `Cannot decrypt ${file}: the passphrase (ATELIER_SECRET_PASSPHRASE) is wrong, or the file ` +
        'was modified. Nothing was read or changed.',
      { cause: err },
    );
  }
  const table = toTable(parseJson(text));
  if (!table) {
    throw new SecretStoreError('bad_file', `${file} decrypted but holds no secret table.`);
  }
  return table;
}

/**
 * `{ v: 1, secrets: { name: value } }` to a table. Checked by hand rather than with a zod record,
 * which rebuilds the object by assignment and so would drop a secret named "__proto__".
 */
function toTable(payload: unknown): SecretTable | null {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(payload) || payload.v !== 1 || !isObject(payload.secrets)) return null;
  const entries = Object.entries(payload.secrets);
  if (!entries.every(([, value]) => typeof value === 'string')) return null;
  return new Map(entries as [string, string][]);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
