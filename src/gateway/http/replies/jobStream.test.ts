import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/errors';
import { startingAfter } from './jobStream';

describe('startingAfter', () => {
  it('is -1 without the parameter, and the number for a sequence number', () => {
    expect(startingAfter(undefined)).toBe(-1);
    expect(startingAfter('0')).toBe(0);
    expect(startingAfter('41')).toBe(41);
    expect(startingAfter('-1')).toBe(-1);
  });

  it('reads any query value as a sequence number or refuses it by name (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.integer({ min: -5, max: 1e9 }).map(String),
          fc.array(fc.string(), { maxLength: 3 }),
          fc.dictionary(fc.string(), fc.string()),
        ),
        (value) => {
          let read: number;
          try {
            read = startingAfter(value);
          } catch (error) {
            expect(error).toBeInstanceOf(ApiError);
            expect(error).toMatchObject({ status: 400, param: 'starting_after' });
            return;
          }
          expect(typeof value).toBe('string');
          expect(Number.isInteger(read)).toBe(true);
          expect(read).toBeGreaterThanOrEqual(-1);
          expect(read).toBe(Number(value));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
