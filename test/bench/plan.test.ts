import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CASE_GROUPS, PAIR_ROUNDS, parsePlan, type Plan } from '../../bench/plan';

function plan(argv: string[]): Plan {
  const p = parsePlan(argv);
  if (p === 'help') throw new Error('help');
  return p;
}

describe('parsePlan', () => {
  it('runs every group, fully, without a baseline by default', () => {
    const p = plan([]);
    expect(p.mode).toBe('full');
    expect(p.groups).toEqual(CASE_GROUPS);
    expect(p.baseline).toBeNull();
    expect(p.warmup).toBeGreaterThanOrEqual(10);
  });

  it('takes --baseline as an absolute folder', () => {
    expect(plan(['--baseline', '/work/wt/base']).baseline).toBe('/work/wt/base');
    expect(plan(['--quick', '--baseline', '../base', '--only', 'latency']).baseline).toBe(
      path.resolve('../base'),
    );
  });

  it('refuses --baseline without a folder', () => {
    expect(() => parsePlan(['--baseline'])).toThrow(/--baseline takes the folder/);
    expect(() => parsePlan(['--baseline', ''])).toThrow(/--baseline takes the folder/);
    expect(() => parsePlan(['--baseline', '--quick'])).toThrow(/--baseline takes the folder/);
  });

  it('gives every before/after case at least 5 rounds with --baseline (the interval needs them)', () => {
    const p = plan(['--baseline', '/work/wt/base']);
    expect(p.latency.small.rounds).toBe(10);
    expect(p.latency.large.rounds).toBe(10);
    expect(p.paths.rounds).toBe(10);
    expect(p.streaming.rounds).toBe(10);
    expect(p.edit.rounds).toBeGreaterThanOrEqual(5);
    expect(p.throughput.rounds).toBeGreaterThanOrEqual(5);
    expect(p.concurrency.levels.find((l) => l.n === 16)?.iterations).toBeGreaterThanOrEqual(5);
    expect(plan([]).latency.small.rounds).toBe(8);
    expect(plan([]).pairs).toBeNull();
  });

  it('takes --pairs with a baseline: the one-at-a-time groups, one call per round', () => {
    const p = plan(['--baseline', '/b', '--pairs', '12']);
    expect(p.pairs).toBe(12);
    expect(p.groups).toEqual(['latency', 'streaming']);
    expect(p.latency).toEqual({
      small: { rounds: PAIR_ROUNDS, block: 1 },
      large: { rounds: PAIR_ROUNDS, block: 1 },
    });
    expect(p.streaming).toEqual({ rounds: PAIR_ROUNDS, block: 1 });
    expect(PAIR_ROUNDS % 4).toBe(0);
    expect(plan(['--baseline', '/b', '--pairs', '40', '--only', 'streaming,edit']).groups).toEqual([
      'streaming',
    ]);
  });

  it('refuses --pairs without a baseline, with --quick, out of range or for other groups', () => {
    expect(() => parsePlan(['--pairs', '40'])).toThrow(/--baseline/);
    expect(() => parsePlan(['--baseline', '/b', '--pairs', '40', '--quick'])).toThrow(/--quick/);
    for (const n of ['4', '101', '1.5', 'x', ''])
      expect(() => parsePlan(['--baseline', '/b', '--pairs', n])).toThrow(/--pairs takes/);
    expect(() => parsePlan(['--baseline', '/b', '--pairs', '40', '--only', 'edit'])).toThrow(
      /--pairs runs only latency, streaming/,
    );
  });

  it('knows the postgres group', () => {
    expect(plan(['--only', 'postgres']).groups).toEqual(['postgres']);
  });

  it('refuses unknown options and groups', () => {
    expect(() => parsePlan(['--fast'])).toThrow(/unknown option --fast/);
    expect(() => parsePlan(['--only', 'latency,nope'])).toThrow(/--only takes/);
  });

  it('gives every case at least one round of one call, quick or full', () => {
    for (const p of [plan([]), plan(['--quick'])]) {
      for (const r of [p.latency.small, p.latency.large, p.streaming, p.edit, p.postgres]) {
        expect(r.rounds).toBeGreaterThanOrEqual(1);
        expect(r.block).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it('either parses a list of known options or throws, never anything else', () => {
    const token = fc.constantFrom(
      '--quick',
      '--verbose',
      '--profile',
      '--baseline',
      '--only',
      '--case',
      'latency',
      'postgres,paths',
      '/tmp/base',
      '',
      '--nope',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 6 }), (argv) => {
        let result: Plan | 'help' | undefined;
        try {
          result = parsePlan(argv);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
          return;
        }
        if (result === 'help') return;
        expect(result.baseline === null || path.isAbsolute(result.baseline)).toBe(true);
        expect(result.groups.every((g) => CASE_GROUPS.includes(g))).toBe(true);
      }),
    );
  });
});
