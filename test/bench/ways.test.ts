import { describe, expect, it } from 'vitest';
import type { Blocks } from '../../bench/blocks';
import { joinBlocks, type Way } from '../../bench/ways';

const part = (installed: number[][], baseline: number[][]): Blocks<Way> => ({
  samples: { installed: installed.flat(), baseline: baseline.flat() } as Record<Way, number[]>,
  byRound: { installed, baseline } as Record<Way, number[][]>,
  cpuInMs: { installed: [installed.length] },
  cpuAfterMs: {},
  settleMs: { baseline: [1] },
});

describe('joinBlocks', () => {
  it('joins the pairs of gateways in the order they ran, round by round', () => {
    const joined = joinBlocks([part([[1], [2]], [[3], [4]]), part([[5]], [[6]])]);
    expect(joined.byRound.installed).toEqual([[1], [2], [5]]);
    expect(joined.byRound.baseline).toEqual([[3], [4], [6]]);
    expect(joined.samples.installed).toEqual([1, 2, 5]);
    expect(joined.cpuInMs.installed).toEqual([2, 1]);
    expect(joined.settleMs.baseline).toEqual([1, 1]);
    expect(joined.cpuAfterMs).toEqual({});
    expect(Object.hasOwn(joined.byRound, 'direct')).toBe(false);
  });

  it('is empty for nothing', () => {
    expect(joinBlocks([]).byRound).toEqual({});
  });
});
