/**
 * Whole-mask passes over coverage bytes (one a pixel), a 32-bit word (four pixels) a step where
 * they can: on a 4K mask each runs in a few milliseconds.
 */

const wordsOf = (coverage: Uint8Array) =>
  new Uint32Array(coverage.buffer, coverage.byteOffset, coverage.length >> 2);

/** Whether no pixel is marked to change. Needs a 4-byte aligned offset (a mask's own array). */
export function coverageIsEmpty(coverage: Uint8Array): boolean {
  const words = wordsOf(coverage);
  for (let i = 0; i < words.length; i++) if (words[i] !== 0) return false;
  for (let i = words.length << 2; i < coverage.length; i++) if (coverage[i] !== 0) return false;
  return true;
}

/** Pixels with any change: a word of none changed (most of a mask) is skipped at once. */
export function countChanged(coverage: Uint8Array): number {
  const words = wordsOf(coverage);
  let count = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === 0) continue;
    count +=
      (w & 0xff ? 1 : 0) + (w & 0xff00 ? 1 : 0) + (w & 0xff0000 ? 1 : 0) + (w & 0xff000000 ? 1 : 0);
  }
  for (let i = words.length << 2; i < coverage.length; i++) if (coverage[i] !== 0) count += 1;
  return count;
}

/** Change becomes keep and keep becomes change, in place. */
export function invertCoverage(coverage: Uint8Array): void {
  for (let i = 0; i < coverage.length; i++) coverage[i] = 255 - coverage[i]!;
}
