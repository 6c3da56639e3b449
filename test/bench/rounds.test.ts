import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addedByRound,
  ratioByRound,
  roundOrder,
  splitRounds,
  summariseRounds,
} from '../../bench/rounds';

const WAYS = ['direct', 'floor', 'installed', 'off'] as const;

describe('roundOrder', () => {
  it('turns the four ways so each is first, last and in between as often in 8 rounds', () => {
    const orders = Array.from({ length: 8 }, (_, r) => roundOrder(WAYS, r));
    expect(orders[0]).toEqual(['direct', 'floor', 'installed', 'off']);
    expect(orders[1]).toEqual(['off', 'installed', 'floor', 'direct']);
    expect(orders[2]).toEqual(['floor', 'installed', 'off', 'direct']);
    for (const way of WAYS) {
      const positions = orders.map((o) => o.indexOf(way)).sort();
      expect(positions).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
    }
  });

  it('is always a permutation of the ways, reversed every other round', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 8 }),
        fc.nat(1000),
        (ways, round) => {
          const order = roundOrder(ways, round);
          expect([...order].sort()).toEqual([...ways].sort());
          if (round % 2 === 0) expect(roundOrder(ways, round + 1)).toEqual([...order].reverse());
        },
      ),
    );
  });

  it('gives nothing for no ways', () => {
    expect(roundOrder([], 3)).toEqual([]);
  });
});

describe('summariseRounds', () => {
  it('takes the median of the rounds medians and their spread', () => {
    const s = summariseRounds([[10, 11, 50], [12, 13, 14], [9, 100, 9], []]);
    expect(s.roundMedians).toEqual([11, 13, 9]);
    expect(s.rounds).toBe(3);
    expect(s.median).toBe(11);
    expect(s.min).toBe(9);
    expect(s.max).toBe(13);
    expect(s.iqr).toBe(2);
  });

  it('keeps the median between min and max, whatever the samples', () => {
    const sample = fc.double({ min: -1e6, max: 1e6, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(fc.array(sample, { minLength: 1, maxLength: 9 }), { minLength: 1, maxLength: 12 }),
        (rounds) => {
          const s = summariseRounds(rounds);
          expect(s.rounds).toBe(rounds.length);
          expect(s.min).toBeLessThanOrEqual(s.median);
          expect(s.median).toBeLessThanOrEqual(s.max);
          expect(s.iqr).toBeGreaterThanOrEqual(0);
          expect(s.iqr).toBeLessThanOrEqual(s.max - s.min);
          // Order of the rounds does not change the summary.
          expect(summariseRounds([...rounds].reverse()).median).toBe(s.median);
        },
      ),
    );
  });

  it('is not moved by one wild sample per round (the reason for medians)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.double({ min: 1e3, max: 1e9, noNaN: true }),
        (n, wild) => {
          const rounds = Array.from({ length: n }, (_, i) => [5, 5, i % 2 === 0 ? wild : -wild]);
          expect(summariseRounds(rounds).median).toBe(5);
        },
      ),
    );
  });

  it('reports NaN for no rounds rather than a number it did not measure', () => {
    expect(summariseRounds([]).median).toBeNaN();
  });
});

describe('splitRounds', () => {
  it('regroups block-ordered samples, losing none', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true })),
        fc.integer({ min: 1, max: 10 }),
        (samples, block) => {
          const rounds = splitRounds(samples, block);
          expect(rounds.flat()).toEqual(samples);
          for (const r of rounds.slice(0, -1)) expect(r).toHaveLength(block);
        },
      ),
    );
  });

  it('refuses a block that is not a positive integer', () => {
    expect(() => splitRounds([1, 2], 0)).toThrow(RangeError);
    expect(() => splitRounds([1, 2], 1.5)).toThrow(RangeError);
  });
});

describe('addedByRound and ratioByRound', () => {
  it('compares each round with the same round of the reference', () => {
    const direct = [[100], [200], [100]];
    const way = [[110], [230], [104]];
    const added = addedByRound(way, direct);
    expect(added.roundMedians).toEqual([10, 30, 4]);
    expect(added.median).toBe(10);
    expect(added.min).toBe(4);
    expect(added.max).toBe(30);
    const ratio = ratioByRound([[50], [80]], [[100], [100]]);
    expect(ratio.roundMedians).toEqual([0.5, 0.8]);
  });

  it('cancels drift that moves both sides of a round alike', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: 1, maxLength: 10 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (drift, overhead) => {
          const direct = drift.map((d) => [50 + d, 51 + d, 49 + d]);
          const way = drift.map((d) => [50 + d + overhead, 51 + d + overhead, 49 + d + overhead]);
          const s = addedByRound(way, direct);
          expect(s.min).toBeCloseTo(overhead, 6);
          expect(s.max).toBeCloseTo(overhead, 6);
        },
      ),
    );
  });

  it('skips rounds where either side has no samples', () => {
    expect(addedByRound([[5], [], [7]], [[1], [1], []]).rounds).toBe(1);
  });
});
