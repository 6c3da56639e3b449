import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  digestsEqual,
  generateApiKey,
  generateKeyId,
  hashApiKey,
  KEY_LENGTH,
  keyDisplayPrefix,
  looksLikeApiKey,
  maskedKey,
} from './apiKeys';

describe('generateApiKey', () => {
  it('is atl_ plus 43 base62 characters, always the same length', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^atl_[0-9A-Za-z]{43}$/);
      expect(key.length).toBe(KEY_LENGTH);
    }
  });

  it('uses all 62 digits and never repeats', () => {
    const keys = Array.from({ length: 500 }, generateApiKey);
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set(keys.flatMap((k) => [...k.slice(4)]));
    expect(seen.size).toBe(62);
  });
});

describe('key helpers', () => {
  it('makes ids of key_ plus 16 hex', () => {
    expect(generateKeyId()).toMatch(/^key_[0-9a-f]{16}$/);
  });

  it('hashes the full key with SHA-256', () => {
    const key = generateApiKey();
    expect(hashApiKey(key).toString('hex')).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key).length).toBe(32);
  });

  it('keeps 8 characters after atl_ for display', () => {
    const key = 'atl_AbCd1234' + 'x'.repeat(35);
    expect(keyDisplayPrefix(key)).toBe('AbCd1234');
    expect(maskedKey(keyDisplayPrefix(key))).toBe('atl_AbCd1234…');
  });

  it('recognises the key format and nothing else', () => {
    const key = generateApiKey();
    expect(looksLikeApiKey(key)).toBe(true);
    expect(looksLikeApiKey(key.slice(0, -1))).toBe(false);
    expect(looksLikeApiKey(`${key}x`)).toBe(false);
    expect(looksLikeApiKey(`sk_${key.slice(3)}`)).toBe(false);
    expect(looksLikeApiKey(`${key.slice(0, -1)}-`)).toBe(false);
    expect(looksLikeApiKey('')).toBe(false);
  });

  it('compares digests without throwing on unequal lengths', () => {
    const a = hashApiKey('a');
    expect(digestsEqual(a, hashApiKey('a'))).toBe(true);
    expect(digestsEqual(a, hashApiKey('b'))).toBe(false);
    expect(digestsEqual(a, a.subarray(0, 31))).toBe(false);
  });
});
