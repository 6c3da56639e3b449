import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CASE_GROUPS, parsePlan, type Plan } from '../../bench/plan';

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
