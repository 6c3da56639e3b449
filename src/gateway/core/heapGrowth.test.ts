import { execFileSync, spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapGrowthDecision, tuneHeapGrowth } from './heapGrowth';

const node = Object.fromEntries(
  Object.entries(process.versions).filter(([name]) => name !== 'electron'),
) as unknown as NodeJS.ProcessVersions;
const electron: NodeJS.ProcessVersions = { ...node, electron: '39.0.0' };
const FLAG = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

describe('the heap growth the gateway sets for its process', () => {
  it('is set in a Node process, through V8, with the documented percentage', () => {
    const set: string[] = [];
    const decision = tuneHeapGrowth((flags) => set.push(flags), {
      versions: node,
      execArgv: ['--enable-source-maps'],
    });
    expect(decision).toEqual({ applied: true, flag: FLAG });
    expect(set).toEqual([FLAG]);
  });

  it('is left alone in Electron and when the command line sets it', () => {
    const set: string[] = [];
    expect(
      tuneHeapGrowth((flags) => set.push(flags), { versions: electron, execArgv: [] }),
    ).toEqual({ applied: false, reason: 'electron' });
    for (const execArgv of [['--heap-growing-percent=50'], ['--heap-growing-percent', '50']])
      expect(tuneHeapGrowth((flags) => set.push(flags), { versions: node, execArgv })).toEqual({
        applied: false,
        reason: 'command line',
      });
    expect(set).toEqual([]);
  });

  it('reads only the flag itself among any other flags', () => {
    const otherFlag = fc
      .string({ minLength: 1, maxLength: 30 })
      .filter(
        (arg) => arg !== '--heap-growing-percent' && !arg.startsWith('--heap-growing-percent='),
      );
    fc.assert(
      fc.property(fc.array(otherFlag, { maxLength: 8 }), fc.nat(1000), fc.nat(8), (args, n, at) => {
        expect(heapGrowthDecision(node, args).applied).toBe(true);
        const given = [...args];
        given.splice(Math.min(at, given.length), 0, `--heap-growing-percent=${n}`);
        expect(heapGrowthDecision(node, given)).toEqual({
          applied: false,
          reason: 'command line',
        });
      }),
    );
  });

  it('is a flag this Node knows: set at run time without a warning, and taken on the command line', () => {
    // V8 does not throw on a flag it does not know: it prints a warning and ignores it.
    const atRunTime = spawnSync(
      process.execPath,
      ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(FLAG)})`],
      { encoding: 'utf8' },
    );
    expect(atRunTime.status).toBe(0);
    expect(atRunTime.stderr).toBe('');
    expect(atRunTime.stdout).toBe('');
    // Node refuses an unknown V8 option on its command line ("bad option").
    expect(execFileSync(process.execPath, [FLAG, '-p', '1'], { encoding: 'utf8' }).trim()).toBe(
      '1',
    );
  });
});
