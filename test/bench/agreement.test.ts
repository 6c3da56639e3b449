import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  agree,
  comparable,
  findPrior,
  readPrior,
  verdictText,
  type PriorRun,
  type RunIdentity,
} from '../../bench/agreement';

const SELF: RunIdentity = { commit: 'abc123', machine: 'host / cpu / 2 / 8', mode: 'full' };
const prior = (outcomes: PriorRun['outcomes'], identity = SELF): PriorRun => ({
  file: 'bench-results/2026-11-26T22-00-00-000Z.json',
  identity,
  outcomes,
});

describe('agree', () => {
  it('gives a verdict only when the previous full run reached the same one', () => {
    const a = agree(
      'paths.apiKey.1024x1024.installed',
      true,
      prior({ 'paths.apiKey.1024x1024.installed': true }),
      SELF,
    );
    expect(a).toEqual({ kind: 'agrees', pass: true, with: '2026-11-26T22-00-00-000Z.json' });
    expect(verdictText(a, true)).toBe('pass, agrees with 2026-11-26T22-00-00-000Z.json');
    const f = agree('x', false, prior({ x: false }), SELF);
    expect(verdictText(f, false)).toMatch(/^FAIL, agrees with/);
  });

  it('says "differs: no verdict" when the two runs disagree', () => {
    const a = agree('x', true, prior({ x: false }), SELF);
    expect(a.kind).toBe('differs');
    expect(verdictText(a, true)).toMatch(/^differs: no verdict/);
  });

  it('gives no verdict on a first run, a quick run, an uncommitted tree or a new case', () => {
    expect(agree('x', true, null, SELF).kind).toBe('first');
    expect(agree('x', true, prior({ x: true }), { ...SELF, mode: 'quick' }).kind).toBe('first');
    expect(agree('x', true, prior({ x: true }), { ...SELF, commit: 'abc123+dirty' }).kind).toBe(
      'first',
    );
    expect(agree('x', true, prior({ y: true }), SELF).kind).toBe('first');
    expect(verdictText(agree('x', true, null, SELF), true)).toMatch(/^pass\? \(first full run/);
  });

  it('does not read a verdict from the prototype chain', () => {
    expect(agree('toString', true, prior({}), SELF).kind).toBe('first');
    expect(agree('__proto__', true, prior({}), SELF).kind).toBe('first');
  });

  it('leaves information rows alone', () => {
    expect(agree('x', null, prior({ x: true }), SELF)).toEqual({ kind: 'info' });
  });

  it('agrees exactly when both outcomes are the same (property)', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), (now, before) => {
        const a = agree('case', now, prior({ case: before }), SELF);
        expect(a.kind).toBe(now === before ? 'agrees' : 'differs');
      }),
    );
  });
});

describe('comparable', () => {
  it('needs two full runs of the same clean commit on the same machine', () => {
    expect(comparable(SELF, SELF)).toBe(true);
    expect(comparable(SELF, { ...SELF, commit: 'def' })).toBe(false);
    expect(comparable(SELF, { ...SELF, machine: 'other' })).toBe(false);
    expect(comparable(SELF, { ...SELF, mode: 'quick' })).toBe(false);
    expect(comparable({ ...SELF, commit: 'x+dirty' }, { ...SELF, commit: 'x+dirty' })).toBe(false);
  });

  it('needs the same baseline (--baseline), clean, or none in both', () => {
    const base = { ...SELF, baseline: 'c7d61aa' };
    expect(comparable(base, base)).toBe(true);
    expect(comparable(base, SELF)).toBe(false);
    expect(comparable(SELF, base)).toBe(false);
    expect(comparable(base, { ...SELF, baseline: 'e55d901' })).toBe(false);
    const dirty = { ...SELF, baseline: 'c7d61aa+dirty' };
    expect(comparable(dirty, dirty)).toBe(false);
    expect(agree('x', true, prior({ x: true }, dirty), dirty).kind).toBe('first');
  });

  it('keeps --pairs runs apart from full runs and from pairs runs of another length', () => {
    const base = { ...SELF, baseline: 'c7d61aa' };
    const pairs = { ...base, pairs: 200 };
    expect(comparable(pairs, pairs)).toBe(true);
    expect(comparable(pairs, base)).toBe(false);
    expect(comparable(pairs, { ...pairs, pairs: 100 })).toBe(false);
    expect(readPrior('f.json', JSON.stringify({ identity: pairs, rows: [] }))?.identity).toEqual(
      pairs,
    );
  });
});

describe('verdictText of an undecided row', () => {
  it('says no verdict, and why', () => {
    expect(verdictText({ kind: 'undecided', reason: 'its interval spans 1.05x' }, null)).toBe(
      'no verdict: its interval spans 1.05x',
    );
  });
});

describe('readPrior', () => {
  it('reads the identity and each row outcome of a report', () => {
    const text = JSON.stringify({
      identity: SELF,
      rows: [{ id: 'a', pass: true }, { id: 'b', pass: null }, { id: 'c', pass: 'yes' }, null],
    });
    const run = readPrior('f.json', text);
    expect(run?.identity).toEqual(SELF);
    expect({ ...run?.outcomes }).toEqual({ a: true, b: null });
  });

  it('returns null for anything that is not a report, and never throws (property)', () => {
    expect(readPrior('f', '{')).toBeNull();
    expect(readPrior('f', JSON.stringify({ rows: [] }))).toBeNull();
    expect(
      readPrior('f', JSON.stringify({ identity: { ...SELF, mode: 'slow' }, rows: [] })),
    ).toBeNull();
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const run = readPrior('f', text);
        if (run !== null) expect(Object.getPrototypeOf(run.outcomes)).toBeNull();
      }),
    );
  });
});

describe('findPrior', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-agreement-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, identity: RunIdentity, pass: boolean) =>
    fs.writeFileSync(path.join(dir, name), JSON.stringify({ identity, rows: [{ id: 'x', pass }] }));

  it('picks the newest earlier comparable run, skipping latest.json, later runs and others', () => {
    write('2026-11-26T20-00-00-000Z.json', SELF, true);
    write('2026-11-26T21-00-00-000Z.json', SELF, false);
    write('2026-11-26T21-30-00-000Z.json', { ...SELF, commit: 'other' }, true);
    write('2026-11-26T21-45-00-000Z.json', { ...SELF, mode: 'quick' }, true);
    write('2026-11-26T23-00-00-000Z.json', SELF, true);
    write('latest.json', SELF, true);
    fs.writeFileSync(path.join(dir, '2026-11-26T21-50-00-000Z.json'), 'not json');
    const found = findPrior(dir, SELF, '2026-11-26T22-00-00-000Z.json');
    expect(path.basename(found!.file)).toBe('2026-11-26T21-00-00-000Z.json');
    expect(found!.outcomes.x).toBe(false);
  });

  it('finds nothing in a missing or empty folder', () => {
    expect(findPrior(path.join(dir, 'none'), SELF, 'z')).toBeNull();
    expect(findPrior(dir, SELF, 'z')).toBeNull();
  });
});
