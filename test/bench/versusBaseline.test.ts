import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BASELINE_RATIO,
  baselineRow,
  baselineSummary,
  slowdownByRound,
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

  it('passes within 1.05x and fails beyond, with the rounds as its spread', () => {
    const within = baselineRow({
      ...fields,
      installed: [[104], [106], [100]],
      baseline: [[100], [100], [100]],
    });
    expect(within.id).toBe('latency.apiKey.1024x1024.baseline');
    expect(within.ratio).toBeCloseTo(1.04, 9);
    expect(within.spread).toEqual({ min: 1, max: 1.06, rounds: 3, unit: 'x' });
    expect(within.pass).toBe(true);
    expect(within.addedMs).toBe(4);
    expect(within.target).toBe(`<= ${BASELINE_RATIO}x the baseline's time`);
    const beyond = baselineRow({
      ...fields,
      installed: [[106], [107], [100]],
      baseline: [[100], [100], [100]],
    });
    expect(beyond.pass).toBe(false);
  });

  it('has no verdict when the ways never ran', () => {
    expect(baselineRow({ ...fields, installed: [], baseline: [] }).pass).toBeNull();
  });

  it('reports no added ms for rates', () => {
    const row = baselineRow({ ...fields, unit: 'req/s', installed: [[95]], baseline: [[100]] });
    expect(row.addedMs).toBeNull();
    expect(row.ratio).toBeCloseTo(100 / 95, 9);
    expect(row.pass).toBe(false);
  });
});

describe('baselineSummary', () => {
  const row = (id: string, installed: number, base: number) =>
    baselineRow({
      id,
      label: id,
      unit: 'ms',
      installed: [[installed]],
      baseline: [[base]],
      commit: 'c7d61aa',
    });

  it('counts the cases within 1.05x and names the slowest', () => {
    const rows = [row('a', 100, 100), row('b', 112, 100), row('c', 90, 100)];
    expect(baselineSummary(rows, 'c7d61aa')).toBe(
      'installed / baseline c7d61aa: 2 of 3 cases within 1.05x in this run; slowest 1.12x (b: as installed / baseline)',
    );
  });

  it('says so when no case was compared', () => {
    expect(baselineSummary([], 'c7d61aa')).toBe('installed / baseline c7d61aa: no case compared');
  });
});
