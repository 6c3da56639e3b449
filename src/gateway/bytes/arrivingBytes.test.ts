import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrivingBytes } from './arrivingBytes';

/** How a test sizes the buffer: no hint, too small, exact, more than enough, or unobtainable. */
type Hint = 'none' | 'small' | 'exact' | 'large' | 'impossible';

function collect(chunks: Buffer[], hint: Hint): ArrivingBytes {
  const total = chunks.reduce((sum, c) => sum + c.length, 0);
  const sizes: Record<Hint, number | null> = {
    none: null,
    small: Math.floor(total / 3),
    exact: total,
    large: total + 100_000,
    // More than any address space: the allocation fails and the chunks are kept instead.
    impossible: 2 ** 50,
  };
  const bytes = new ArrivingBytes(() => sizes[hint]);
  for (const chunk of chunks) bytes.push(chunk);
  return bytes;
}

describe('ArrivingBytes', () => {
  it('gives back exactly the bytes pushed, whatever the chunks and the hint (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 40 }),
        fc.constantFrom<Hint>('none', 'small', 'exact', 'large', 'impossible'),
        (arrays, hint) => {
          const chunks = arrays.map((a) => Buffer.from(a));
          const bytes = collect(chunks, hint);
          const expected = Buffer.concat(chunks);
          expect(bytes.size).toBe(expected.length);
          expect(bytes.bytes().equals(expected)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with the body left as its hint, fills one buffer and hands out a view of it', () => {
    const chunks = [Buffer.alloc(70_000, 1), Buffer.alloc(65_536, 2), Buffer.alloc(10, 3)];
    const total = 70_000 + 65_536 + 10;
    const bytes = new ArrivingBytes(() => total + 5_000);
    bytes.push(chunks[0]!);
    const first = bytes.bytes().buffer;
    bytes.push(chunks[1]!);
    bytes.push(chunks[2]!);
    const out = bytes.bytes();
    expect(out.buffer).toBe(first);
    expect(out.length).toBe(total);
    // A view: the gathered buffer, not a copy of it.
    expect(bytes.bytes().buffer).toBe(out.buffer);
  });

  it('without a hint, grows by doubling from one megabyte', () => {
    const bytes = new ArrivingBytes(() => null);
    bytes.push(Buffer.alloc(10, 7));
    expect(bytes.bytes().buffer.byteLength).toBe(1024 * 1024);
    bytes.push(Buffer.alloc(1024 * 1024, 8));
    expect(bytes.bytes().buffer.byteLength).toBe(2 * 1024 * 1024);
    expect(bytes.bytes()[9]).toBe(7);
    expect(bytes.bytes()[10]).toBe(8);
  });

  it('is empty before any byte and after release', () => {
    const bytes = new ArrivingBytes(() => 100);
    expect(bytes.bytes().length).toBe(0);
    bytes.push(Buffer.from('abc'));
    bytes.release();
    expect(bytes.size).toBe(0);
    expect(bytes.bytes().length).toBe(0);
  });
});
