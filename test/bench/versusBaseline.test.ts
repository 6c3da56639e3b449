import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BASELINE_RATIO,
  baselineRow,
  baselineSummary,
  slowdownByRound,
  slowdownBySegment,
} from '../../bench/versusBaseline';

describe('slowdownByRound', () => {
  it('divides the installed time by the baseline time, round by round', () => {
    const s = slowdownByRound(
      [
        [110, 100, 120],
        [210, 200, 220],
        [99, 99, 99],
      ],
      [
        [100, 100, 100],
        [100, 100, 100],
        [100, 100, 100],
      ],
      'ms',
    );
    expect(s.roundMedians).toEqual([1.1, 2.1, 0.99]);
    expect(s.median).toBe(1.1);
    expect(s.min).toBe(0.99);
    expect(s.max).toBe(2.1);
  });

  it('turns rates over, so a slower installed gateway is above 1 either way', () => {
    const s = slowdownByRound([[50], [40]], [[100], [100]], 'req/s');
    expect(s.roundMedians).toEqual([2, 2.5]);
  });

  it('is 1 for the same samples, whatever they are', () => {
    const positive = fc.double({ min: 1e-3, max: 1e6, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(fc.array(positive, { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 10,
        }),
        fc.constantFrom('ms' as const, 'req/s' as const),
        (rounds, unit) => {
          const s = slowdownByRound(rounds, rounds, unit);
          expect(s.median).toBeCloseTo(1, 9);
          expect(s.min).toBeCloseTo(1, 9);
          expect(s.max).toBeCloseTo(1, 9);
        },
      ),
    );
  });

  it('says twice as slow when every installed sample takes twice as long', () => {
    const positive = fc.double({ min: 1e-3, max: 1e6, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(fc.array(positive, { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 10,
        }),
        (rounds) => {
          const doubled = rounds.map((r) => r.map((x) => 2 * x));
          expect(slowdownByRound(doubled, rounds, 'ms').median).toBeCloseTo(2, 9);
          // Half the rate is twice as slow.
          const halved = rounds.map((r) => r.map((x) => x / 2));
          expect(slowdownByRound(halved, rounds, 'req/s').median).toBeCloseTo(2, 9);
        },
      ),
    );
  });
});

describe('baselineRow', () => {
  const fields = {
    id: 'latency.apiKey.1024x1024',
    label: '1024x1024 PNG',
    unit: 'ms' as const,
    commit: 'c7d61aa',
  };
  const rounds = (...ms: number[]) => ms.map((x) => [x]);
  const hundreds = (n: number) => rounds(...new Array<number>(n).fill(100));

  it('is within 1.05x when the whole interval is, and gives it as the spread', () => {
    const row = baselineRow({
      ...fields,
      installed: rounds(98, 99, 100, 101, 102, 100, 99, 101),
      baseline: hundreds(8),
    });
    expect(row.id).toBe('latency.apiKey.1024x1024.baseline');
    expect(row.pass).toBe(true);
    expect(row.undecided).toBeUndefined();
    expect(row.ratio).toBeCloseTo(1, 2);
    expect(row.spread?.interval).toBe(true);
    expect(row.spread?.rounds).toBe(8);
    expect(row.spread!.max).toBeLessThanOrEqual(BASELINE_RATIO);
    expect(row.spread!.min).toBeLessThanOrEqual(row.ratio!);
    expect(row.target).toBe(`<= ${BASELINE_RATIO}x the baseline's time`);
    expect(row.details?.judgement).toBe('within');
  });

  it('is over when the whole interval is above 1.05x', () => {
    const row = baselineRow({
      ...fields,
      installed: rounds(110, 112, 109, 111, 115, 108, 113, 110),
      baseline: hundreds(8),
    });
    expect(row.pass).toBe(false);
    expect(row.undecided).toBeUndefined();
    expect(row.spread!.min).toBeGreaterThan(BASELINE_RATIO);
  });

  it('decides nothing when the interval spans 1.05x, and says what would', () => {
    const row = baselineRow({
      ...fields,
      installed: rounds(80, 130, 95, 120, 100, 110, 70, 140),
      baseline: hundreds(8),
    });
    expect(row.pass).toBeNull();
    expect(row.undecided).toMatch(/interval .* spans 1\.05x: more rounds \(--pairs\)/);
    expect(row.details?.judgement).toBe('undecided');
  });

  it('decides nothing from fewer than 5 rounds: no interval, the rounds as its spread', () => {
    const row = baselineRow({
      ...fields,
      installed: [[104], [106], [100]],
      baseline: [[100], [100], [100]],
    });
    expect(row.pass).toBeNull();
    expect(row.undecided).toBe('3 rounds are too few for an interval (5 at least)');
    expect(row.ratio).toBeCloseTo(1.04, 9);
    expect(row.spread).toEqual({ min: 1, max: 1.06, rounds: 3, unit: 'x' });
    expect(row.addedMs).toBe(4);
  });

  it('has no verdict and no reason when the ways never ran', () => {
    const row = baselineRow({ ...fields, installed: [], baseline: [] });
    expect(row.pass).toBeNull();
    expect(row.undecided).toBeUndefined();
  });

  it('turns rates over and reports no added ms for them', () => {
    const row = baselineRow({
      ...fields,
      unit: 'req/s',
      installed: rounds(80, 81, 79, 80, 82, 80),
      baseline: rounds(100, 100, 100, 100, 100, 100),
    });
    expect(row.addedMs).toBeNull();
    expect(row.ratio).toBeCloseTo(1.25, 1);
    expect(row.pass).toBe(false);
  });
});

describe('slowdownBySegment and rows from pairs of gateways', () => {
  it('gives each run of consecutive rounds its own estimate, the last one short', () => {
    const out = slowdownBySegment([1, 1, 1, 2, 2, 2, 4], 3);
    expect(out).toHaveLength(3);
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[1]).toBeCloseTo(2, 12);
    expect(out[2]).toBeCloseTo(4, 12);
    expect(() => slowdownBySegment([1], 0)).toThrow(RangeError);
  });

  it('judges by the pairs, so a pair that differs widens the interval as it should', () => {
    const fields = { id: 'latency.bridge.3840x2160', label: '4K', unit: 'ms' as const };
    // Six pairs of four rounds: every round of a pair alike, the pairs 0.95x to 1.15x apart.
    const perPair = [1.0, 1.1, 0.95, 1.15, 1.02, 1.08];
    const installed = perPair.flatMap((r) => [[100 * r], [100 * r], [100 * r], [100 * r]]);
    const baseline = installed.map(() => [100]);
    const byRounds = baselineRow({ ...fields, installed, baseline, commit: 'c7d61aa' });
    const byPairs = baselineRow({
      ...fields,
      installed,
      baseline,
      commit: 'c7d61aa',
      pairRounds: 4,
    });
    expect(byPairs.spread?.pairs).toBe(6);
    expect(byPairs.spread?.rounds).toBe(24);
    expect((byPairs.details?.pairSlowdowns as number[]).map((x) => +x.toFixed(6))).toEqual(perPair);
    // Treating 24 rounds as independent claims more than 6 pairs can show.
    const width = (row: typeof byPairs) => row.spread!.max - row.spread!.min;
    expect(width(byPairs)).toBeGreaterThan(width(byRounds));
    expect(byPairs.pass).toBeNull();
    expect(byPairs.undecided).toMatch(/spans 1\.05x: more pairs$/);
  });
});

describe('baselineSummary', () => {
  const row = (id: string, installed: number[], base: number) =>
    baselineRow({
      id,
      label: id,
      unit: 'ms',
      installed: installed.map((x) => [x]),
      baseline: installed.map(() => [base]),
      commit: 'c7d61aa',
    });

  it('counts the cases within 1.05x, over it and undecided, and names the slowest', () => {
    const rows = [
      row('a', [100, 101, 99, 100, 100], 100),
      row('b', [112, 113, 111, 112, 112], 100),
      row('c', [80, 130, 95, 120, 100], 100),
    ];
    expect(baselineSummary(rows, 'c7d61aa')).toBe(
      'installed / baseline c7d61aa: of 3 cases, 1 within 1.05x, 1 over it, 1 undecided in ' +
        'this run; slowest 1.12x (b: as installed / baseline)',
    );
  });

  it('says so when no case was compared', () => {
    expect(baselineSummary([], 'c7d61aa')).toBe('installed / baseline c7d61aa: no case compared');
  });
});
