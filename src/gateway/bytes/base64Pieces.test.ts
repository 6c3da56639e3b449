import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  Base64Quanta,
  decodePieces,
  encodePieces,
  joinPieces,
  piecesAfter,
  piecesLength,
  piecesPrefix,
} from './base64Pieces';

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

  it('cuts a long piece into strings of at most 64 KB that each decode whole', () => {
    const bytes = randomBytes(400_001);
    const text = Buffer.from(bytes.toString('base64'), 'latin1');
    const quanta = new Base64Quanta();
    const strings = [...quanta.take(text.subarray(0, 3)), ...quanta.take(text.subarray(3))];
    strings.push(quanta.rest());
    expect(Math.max(...strings.map((t) => t.length))).toBeLessThanOrEqual(64 * 1024);
    expect(strings.slice(0, -2).every((t) => t.length % 4 === 0)).toBe(true);
    expect(Buffer.concat(strings.map((t) => Buffer.from(t, 'base64'))).equals(bytes)).toBe(true);
  });

  it('drops a prefix of any length across pieces, without copying', () => {
    const pieces = cut(Buffer.from('abcdefghij', 'latin1'), [3, 4]);
    expect(Buffer.concat(piecesAfter(pieces, 0)).toString('latin1')).toBe('abcdefghij');
    expect(Buffer.concat(piecesAfter(pieces, 3)).toString('latin1')).toBe('defghij');
    expect(Buffer.concat(piecesAfter(pieces, 5)).toString('latin1')).toBe('fghij');
    expect(piecesAfter(pieces, 10)).toEqual([]);
    // A view into the same memory, one byte into the third piece: nothing was copied.
    expect(piecesAfter(pieces, 5)[0]!.byteOffset).toBe(pieces[2]!.byteOffset + 1);
  });

  it('encodes in pieces of at most 64 KB that join to the one-pass encoding', () => {
    for (const size of [0, 1, 49_151, 49_152, 49_153, 200_000]) {
      const bytes = randomBytes(size);
      const pieces = encodePieces(bytes);
      expect(Buffer.concat(pieces).toString('latin1'), `size ${size}`).toBe(
        bytes.toString('base64'),
      );
      expect(pieces.every((piece) => piece.length <= 64 * 1024)).toBe(true);
    }
  });
});
