import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countsBetween, statementKey } from '../../bench/queryCounter';

describe('statementKey', () => {
  it('collapses whitespace so one statement is one key', () => {
    expect(statementKey('  SELECT *\n    FROM usage\tWHERE id = $1 ')).toBe(
      'SELECT * FROM usage WHERE id = $1',
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(statementKey(statementKey(text))).toBe(statementKey(text));
      }),
    );
  });
});

describe('countsBetween', () => {
  it('counts what was sent between two readings, most frequent first', () => {
    const between = countsBetween(
      { total: 5, byStatement: { BEGIN: 2, COMMIT: 2, 'SELECT 1': 1 } },
      { total: 12, byStatement: { BEGIN: 4, COMMIT: 4, 'SELECT 1': 1, 'INSERT x': 3 } },
    );
    expect(between.total).toBe(7);
    expect(between.byStatement).toEqual([
      { statement: 'INSERT x', count: 3 },
      { statement: 'BEGIN', count: 2 },
      { statement: 'COMMIT', count: 2 },
    ]);
  });

  it('reads a statement named like an Object property as a statement', () => {
    const between = countsBetween(
      { total: 0, byStatement: {} },
      { total: 1, byStatement: { toString: 1 } },
    );
    expect(between.byStatement).toEqual([{ statement: 'toString', count: 1 }]);
  });

  it('sums to the total when every statement is counted', () => {
    const counts = fc.dictionary(
      fc.string().filter((k) => k !== '__proto__'),
      fc.nat(50),
    );
    fc.assert(
      fc.property(counts, counts, (a, extra) => {
        // Statement texts may be any string, "toString" too: no prototype to read through.
        const after = Object.assign(Object.create(null) as Record<string, number>, a);
        for (const [k, v] of Object.entries(extra))
          after[k] = (Object.hasOwn(after, k) ? after[k]! : 0) + v;
        const sum = (r: Record<string, number>) => Object.values(r).reduce((x, y) => x + y, 0);
        const between = countsBetween(
          { total: sum(a), byStatement: a },
          { total: sum(after), byStatement: after },
        );
        expect(between.byStatement.reduce((x, s) => x + s.count, 0)).toBe(between.total);
      }),
    );
  });
});
