import { createCipheriv, createHash } from 'node:crypto';

/**
 * Deterministic randomness for rendering. Images must be identical for the same prompt and size,
 * so everything derives from a hash of the seed text, never from Math.random.
 */
export function seedFrom(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** mulberry32: tiny, fast and good enough to place shapes and pick colours. */
export function createRandom(seed: Buffer): () => number {
  let state = seed.readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A deterministic stream of incompressible bytes. AES-CTR keystream runs in native code, so even a
 * 4K frame of noise (25 MB) costs a few milliseconds instead of a JS loop per byte.
 */
export function noiseBytes(seed: Buffer, length: number): Buffer {
  const cipher = createCipheriv('aes-128-ctr', seed.subarray(0, 16), seed.subarray(16, 32));
  return cipher.update(Buffer.alloc(length));
}
