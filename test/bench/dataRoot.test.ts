import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { benchDataRoot, fileCreateMs, freshBenchDir } from '../../bench/dataRoot';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-root-'));
afterEach(() => vi.unstubAllEnvs());
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe("the bench's data folders", () => {
  it('are made beside the folder an installed gateway uses, not in the temporary folder', () => {
    vi.stubEnv('ATELIER_DATA_DIR', path.join(home, 'config', 'Atelier'));
    expect(benchDataRoot()).toBe(path.join(home, 'config', 'atelier-bench'));
    const dir = freshBenchDir('atelier-bench-');
    expect(path.dirname(dir)).toBe(path.join(home, 'config', 'atelier-bench'));
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('report what a create costs there, and leave no probe files behind', () => {
    const parent = fs.mkdtempSync(path.join(home, 'probe-'));
    const ms = fileCreateMs(parent);
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThan(0);
    expect(fs.readdirSync(parent)).toEqual([]);
  });
});
