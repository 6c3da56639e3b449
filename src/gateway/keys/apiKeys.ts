import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every Atelier key starts with this, so a leaked key is recognisable (and scannable) as ours. */
export const KEY_PREFIX = 'atl_';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 256 bits of entropy; the spec needs >= 128. */
const KEY_BYTES = 32;
/** 62^43 > 2^256, so 43 base62 digits hold any 32 bytes: every key has the same length. */
const KEY_BODY_LENGTH = 43;
/** Characters of the body kept in clear for display (`atl_AbCd1234…`): ~48 bits, not enough to guess. */
const DISPLAY_PREFIX_LENGTH = 8;

export const KEY_LENGTH = KEY_PREFIX.length + KEY_BODY_LENGTH;

/** A new plaintext key. It is shown to its owner once and never stored. */
export function generateApiKey(): string {
  return KEY_PREFIX + toBase62(randomBytes(KEY_BYTES), KEY_BODY_LENGTH);
}

/** `key_` + 16 hex: the public id used in URLs, logs and usage records. */
export function generateKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

/**
 * SHA-256 of the full key. A slow, salted password hash (scrypt, argon2) defends low-entropy
 * secrets against guessing; these keys carry 256 random bits, so guessing is hopeless anyway and
 * a fast unsalted hash is right. It also lets `authenticate` find a key by an indexed equality
 * lookup on the hash, which a per-row salt would make impossible.
 */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** The displayable start of a key's body, stored beside the hash. */
export function keyDisplayPrefix(key: string): string {
  return key.slice(KEY_PREFIX.length, KEY_PREFIX.length + DISPLAY_PREFIX_LENGTH);
}

/** How a key is shown once its plaintext is gone: `atl_AbCd1234…`. */
export function maskedKey(displayPrefix: string): string {
  return `${KEY_PREFIX}${displayPrefix}…`;
}

/**
 * Whether a presented string can be an Atelier key at all. Its format is public, so rejecting early
 * leaks nothing; it also keeps a megabyte-long bearer header from being hashed.
 */
export function looksLikeApiKey(presented: string): boolean {
  return (
    presented.length === KEY_LENGTH &&
    presented.startsWith(KEY_PREFIX) &&
    /^[0-9A-Za-z]+$/.test(presented.slice(KEY_PREFIX.length))
  );
}

/** Constant-time equality of two digests; unequal lengths are simply unequal (no throw). */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function toBase62(bytes: Buffer, width: number): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let digits = '';
  while (value > 0n) {
    digits = BASE62.charAt(Number(value % 62n)) + digits;
    value /= 62n;
  }
  return digits.padStart(width, BASE62.charAt(0));
}
