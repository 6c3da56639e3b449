import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownValue, prototypeFreeTable } from './ownProperty';

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

describe('own-property lookups', () => {
  const table = { standard: 'medium', hd: 'high' };

  it('find what the table holds', () => {
    expect(ownValue(table, 'hd')).toBe('high');
    expect(prototypeFreeTable(table).standard).toBe('medium');
  });

  it('never find a name every object inherits', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PROTOTYPE_NAMES), (name) => {
        expect(ownValue(table, name)).toBeUndefined();
        expect(prototypeFreeTable(table)[name]).toBeUndefined();
      }),
    );
  });

  it('find exactly the own keys of any table', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.integer()), fc.string(), (entries, key) => {
        const expected = Object.keys(entries).includes(key) ? entries[key] : undefined;
        expect(ownValue(entries, key)).toBe(expected);
      }),
    );
  });
});
