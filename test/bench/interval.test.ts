import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  centreInterval,
  judgeAtMost,
  ratioInterval,
  signedRankCdf,
  type Interval,
} from '../../bench/interval';
import { prng } from '../../scripts/soak/plan';

/** P(T <= t) by listing every one of the 2^n sign patterns: the definition, for small n. */
function bruteCdf(n: number): number[] {
  const max = (n * (n + 1)) / 2;
  const counts = new Array<number>(max + 1).fill(0);
  for (let mask = 0; mask < 2 ** n; mask += 1) {
    let t = 0;
    for (let rank = 1; rank <= n; rank += 1) if (mask & (1 << (rank - 1))) t += rank;
    counts[t]! += 1;
  }
  let sum = 0;
  return counts.map((c) => (sum += c) / 2 ** n);
}

describe('signedRankCdf', () => {
  it('matches the count of every sign pattern for n up to 12', () => {
    for (let n = 0; n <= 12; n += 1) {
      const fast = Array.from(signedRankCdf(n));
      const brute = bruteCdf(n);
      expect(fast.length).toBe(brute.length);
      fast.forEach((p, t) => expect(p).toBeCloseTo(brute[t]!, 12));
    }
  });

  it('stays a distribution for hundreds of rounds (no overflow)', () => {
    const cdf = signedRankCdf(400);
    expect(cdf[cdf.length - 1]).toBeCloseTo(1, 9);
    // Symmetric about n(n+1)/4.
    expect(cdf[40_100 - 1]! + cdf[40_100]!).toBeCloseTo(1, 9);
  });
});

describe('centreInterval', () => {
  it('gives the textbook interval for eight values', () => {
    // n = 8 at 90 %: P(T <= 5) = 10/256, P(T <= 6) = 14/256 > 0.05, so the 6th smallest and the
    // 6th largest of the 36 Walsh averages, with coverage 1 - 20/256.
    const i = centreInterval([1, 2, 3, 4, 5, 6, 7, 8])!;
    expect(i.n).toBe(8);
    expect(i.confidence).toBeCloseTo(1 - 20 / 256, 12);
    expect(i.estimate).toBe(4.5);
    // Walsh averages: 1, 1.5, 2, 2, 2.5, 2.5, 3, ... (and the same from the top down).
    expect(i.low).toBe(2.5);
    expect(i.high).toBe(6.5);
  });

  it('has no interval for too few values, and refuses what is not a number', () => {
    expect(centreInterval([1, 2, 3, 4])).toBeNull();
    expect(centreInterval([1, 2, 3, 4, 5])).not.toBeNull();
    expect(centreInterval([])).toBeNull();
    expect(centreInterval([1, 2, 3, 4, 5, Number.NaN])).toBeNull();
  });

  it('holds the estimate, and moves with the values', () => {
    const value = fc.double({ min: -1e3, max: 1e3, noNaN: true });
    fc.assert(
      fc.property(fc.array(value, { minLength: 5, maxLength: 40 }), value, (values, shift) => {
        const i = centreInterval(values)!;
        expect(i.low).toBeLessThanOrEqual(i.estimate);
        expect(i.estimate).toBeLessThanOrEqual(i.high);
        expect(i.confidence).toBeGreaterThanOrEqual(0.9);
        const moved = centreInterval(values.map((v) => v + shift))!;
        expect(moved.low).toBeCloseTo(i.low + shift, 6);
        expect(moved.high).toBeCloseTo(i.high + shift, 6);
      }),
    );
  });

  it('covers the true centre at least as often as it says, and narrows with more values', () => {
    // The soak's seeded generator, so the coverage check is the same on every run.
    const random = prng(24);
    // Logistic noise: symmetric, with heavier tails than a normal's (like one call's time).
    const noise = () => {
      const u = Math.min(Math.max(random(), 1e-12), 1 - 1e-12);
      return Math.log(u / (1 - u)) * 0.2;
    };
    const trials = 1500;
    const widths = (n: number) => {
      let covered = 0;
      let width = 0;
      for (let trial = 0; trial < trials; trial += 1) {
        const i = centreInterval(Array.from({ length: n }, () => 0.05 + noise()))!;
        if (i.low <= 0.05 && 0.05 <= i.high) covered += 1;
        width += i.high - i.low;
      }
      return { coverage: covered / trials, width: width / trials };
    };
    const few = widths(10);
    const many = widths(40);
    expect(few.coverage).toBeGreaterThanOrEqual(0.88);
    expect(many.coverage).toBeGreaterThanOrEqual(0.88);
    expect(many.width).toBeLessThan(few.width * 0.6);
  });
});

describe('ratioInterval and judgeAtMost', () => {
  it('works on the logarithms: 0.8x and 1.25x weigh alike', () => {
    const i = ratioInterval([0.8, 1.25, 0.8, 1.25, 1, 1, 1])!;
    expect(i.estimate).toBeCloseTo(1, 12);
    expect(i.low * i.high).toBeCloseTo(1, 12);
  });

  it('refuses a ratio that is not positive', () => {
    expect(ratioInterval([1, 1, 1, 0, 1])).toBeNull();
  });

  it('says within, over or undecided from where the interval lies', () => {
    const at = (low: number, high: number): Interval => ({
      estimate: (low + high) / 2,
      low,
      high,
      confidence: 0.9,
      n: 10,
    });
    expect(judgeAtMost(at(0.9, 1.04), 1.05)).toBe('within');
    expect(judgeAtMost(at(0.9, 1.05), 1.05)).toBe('within');
    expect(judgeAtMost(at(1.06, 1.2), 1.05)).toBe('over');
    expect(judgeAtMost(at(0.98, 1.07), 1.05)).toBe('undecided');
    expect(judgeAtMost(null, 1.05)).toBe('undecided');
  });
});
