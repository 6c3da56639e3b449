import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodePieces, joinPieces, piecesLength, piecesPrefix } from './base64Pieces';

/** Cuts `text` at the given offsets. */
function cut(text: Buffer, at: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let from = 0;
  for (const to of [...at, text.length]) {
    pieces.push(text.subarray(from, to));
    from = to;
  }
  return pieces;
}

describe('base64 pieces', () => {
  it('decodes pieces cut anywhere, padded or not, to the exact bytes', () => {
    for (const size of [0, 1, 2, 3, 4, 5, 1000, 65_537]) {
      const bytes = randomBytes(size);
      const padded = Buffer.from(bytes.toString('base64'), 'latin1');
      const unpadded = Buffer.from(padded.toString('latin1').replace(/=+$/, ''), 'latin1');
      for (const text of [padded, unpadded]) {
        const offsets = [1, 2, 7, 11, 4099].filter((o) => o < text.length);
        expect(decodePieces(cut(text, offsets)).equals(bytes), `size ${size}`).toBe(true);
        expect(decodePieces([text]).equals(bytes)).toBe(true);
      }
    }
  });

  it('measures, prefixes and joins without losing a byte', () => {
    const text = Buffer.from('abcdefghijklmnop', 'latin1');
    const pieces = cut(text, [3, 4, 10]);
    expect(piecesLength(pieces)).toBe(16);
    expect(piecesPrefix(pieces, 6).toString('latin1')).toBe('abcdef');
    expect(piecesPrefix(pieces, 2).toString('latin1')).toBe('ab');
    expect(piecesPrefix(pieces, 99).toString('latin1')).toBe('abcdefghijklmnop');
    expect(piecesPrefix([], 4).length).toBe(0);
    expect(joinPieces(pieces).equals(text)).toBe(true);
  });
});
