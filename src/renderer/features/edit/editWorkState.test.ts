import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseKeptState, type KeptState } from './editWorkState';

const key = fc.stringMatching(/^[A-Za-z0-9-]{1,64}$/);
const side = fc.integer({ min: 1, max: 16384 });
const image = fc.record({
  key,
  name: fc.string({ maxLength: 40 }),
  width: side,
  height: side,
  format: fc.constantFrom('png' as const, 'jpeg' as const, 'webp' as const),
  galleryId: fc.option(fc.string({ maxLength: 30 }), { nil: null }),
});
const state: fc.Arbitrary<KeptState> = fc.record({
  references: fc.array(image, { maxLength: 4 }),
  chain: fc.array(
    fc.record(
      {
        key,
        name: fc.string({ maxLength: 40 }),
        width: side,
        height: side,
        format: fc.constantFrom('png' as const, 'jpeg' as const, 'webp' as const),
        galleryId: fc.option(fc.string({ maxLength: 30 }), { nil: null }),
        prompt: fc.option(fc.string({ maxLength: 60 }), { nil: null }),
        startsStack: fc.boolean(),
      },
      { requiredKeys: ['key', 'name', 'width', 'height', 'format', 'galleryId', 'prompt'] },
    ),
    { maxLength: 4 },
  ),
  mask: fc.option(fc.record({ width: side, height: side, key }), { nil: null }),
});

describe('parseKeptState (the record of Edit’s kept work, read back from the gateway)', () => {
  it('gives back every record it wrote, through JSON', () => {
    fc.assert(
      fc.property(state, (s) => {
        expect(parseKeptState(JSON.parse(JSON.stringify(s)))).toEqual(s);
      }),
    );
  });

  it('never throws, and refuses what it did not write', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = parseKeptState(value);
        if (parsed !== null) expect(Array.isArray(parsed.references)).toBe(true);
      }),
    );
    expect(parseKeptState(null)).toBeNull();
    expect(
      parseKeptState({ references: [], chain: [], mask: { width: 0, height: 1, key: 'a' } }),
    ).toBeNull();
    expect(
      parseKeptState({
        references: [
          { key: '../x', name: 'a', width: 1, height: 1, format: 'png', galleryId: null },
        ],
        chain: [],
        mask: null,
      }),
    ).toBeNull();
  });
});
