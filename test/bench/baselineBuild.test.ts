import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildBaseline } from '../../bench/baselineBuild';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-baseline-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A checkout as far as --baseline cares: package.json, node_modules and the two entries. */
function tree(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

describe('buildBaseline', () => {
  it('refuses a folder without the bench gateway child and setup, naming what is missing', async () => {
    tree({ 'package.json': '{}', 'bench/setup.ts': 'export const x = 1;' });
    await expect(buildBaseline(dir)).rejects.toThrow(/missing bench\/gatewayChild\.ts/);
  });

  it('refuses a checkout without node_modules', async () => {
    tree({
      'package.json': '{}',
      'bench/setup.ts': 'export const x = 1;',
      'bench/gatewayChild.ts': 'export {};',
    });
    await expect(buildBaseline(dir)).rejects.toThrow(/no node_modules/);
  });

  it("bundles the tree's gateway child and setup into its out/bench-baseline", async () => {
    tree({
      'package.json': '{"version":"9.9.9"}',
      'node_modules/.keep': '',
      'src/version.ts':
        'declare const __ATELIER_VERSION__: string;\nexport const v = __ATELIER_VERSION__;',
      'bench/setup.ts':
        "import { v } from '../src/version';\nexport const prepareDataDir = () => v;",
      'bench/gatewayChild.ts': "import { v } from '../src/version';\nprocess.stdout.write(v);",
    });
    const built = await buildBaseline(dir);
    expect(built.dir).toBe(path.resolve(dir));
    expect(built.setupModule).toBe(path.join(dir, 'out', 'bench-baseline', 'setup.mjs'));
    expect(built.gatewayChild).toBe(path.join(dir, 'out', 'bench-baseline', 'gatewayChild.mjs'));
    // Not a git checkout: never taken for a clean commit (no verdict against it).
    expect(built.commit).toMatch(/\+dirty$/);
    const setup = (await import(built.setupModule)) as { prepareDataDir: () => string };
    expect(setup.prepareDataDir()).toBe('9.9.9');
    expect(fs.readFileSync(built.gatewayChild, 'utf8')).toContain('"9.9.9"');
  });
});
