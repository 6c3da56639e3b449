import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindNamed } from './named';

describe('bindNamed', () => {
  it('binds each name where it appears, twice when used twice', () => {
    expect(bindNamed('SELECT @a + @b WHERE x = @a', { a: 1, b: 'two' })).toEqual({
      sql: 'SELECT ? + ? WHERE x = ?',
      values: [1, 'two', 1],
    });
  });

  it('refuses a name with no value, inherited ones included', () => {
    expect(() => bindNamed('SELECT @toString', {})).toThrow(/@toString/);
    expect(() => bindNamed('SELECT @missing', { other: 1 })).toThrow(/@missing/);
  });

  it('leaves one placeholder per parameter and keeps the rest of the text', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(name, fc.integer())), fc.string(), (pairs, filler) => {
        const clean = filler.replace(/[@?]/g, '');
        const params = Object.fromEntries(pairs);
        const names = Object.keys(params);
        const sql = names.map((n) => `${clean}@${n} `).join('');
        const bound = bindNamed(sql, params);
        expect(bound.sql).toBe(names.map(() => `${clean}? `).join(''));
        expect(bound.values).toEqual(names.map((n) => params[n]));
      }),
    );
  });
});
