import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkNativeModules,
  classifyNativeModule,
  describeProblems,
  elfDynamicSymbols,
} from '../../scripts/native-modules.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/native-modules.mjs');
// A real N-API binary of this platform, shipped inside the better-sqlite3 package.
const REAL_ADDON = path.join(
  ROOT,
  'node_modules/better-sqlite3/prebuilds',
  `${process.platform}-${process.arch}.node`,
);

/**
 * The same real binary with its registration renamed to what a module built against Node's V8
 * API exports (`node_register_module_v<N>`; the name has the same length, so the ELF stays
 * well-formed): exactly what better-sqlite3 12 shipped, which Electron refuses to load.
 */
function v8AbiAddon(): Buffer {
  const bytes = Buffer.from(fs.readFileSync(REAL_ADDON));
  const from = Buffer.from('napi_register_module_v1\0');
  const to = Buffer.from('node_register_module_v1\0');
  let at = bytes.indexOf(from);
  expect(at).toBeGreaterThan(0);
  for (; at >= 0; at = bytes.indexOf(from, at + 1)) to.copy(bytes, at);
  return bytes;
}

describe('the N-API check of the production dependency tree', () => {
  it('finds the app’s native modules and every one is N-API', () => {
    const checked = checkNativeModules(ROOT);
    const packages = new Set(checked.map((c) => c.package));
    // The walk reaches the three native dependencies (and the platform builds they pull in).
    expect(packages).toContain('better-sqlite3');
    expect([...packages].some((name) => name.startsWith('@img/sharp-'))).toBe(true);
    expect([...packages].some((name) => name.startsWith('@napi-rs/keyring-'))).toBe(true);
    expect(describeProblems(checked)).toEqual([]);
    // Build tools with native parts (rolldown, lightningcss) are dev-only and not shipped.
    expect([...packages].some((name) => name.includes('rolldown'))).toBe(false);
  });

  it.runIf(process.platform === 'linux')('reads ELF dynamic symbols, not just bytes', () => {
    const symbols = elfDynamicSymbols(fs.readFileSync(REAL_ADDON))!;
    expect(symbols).toBeDefined();
    expect(symbols).toContainEqual({ name: 'napi_register_module_v1', defined: true });
    // An N-API module imports the API from the host process.
    expect(symbols.some((s) => s.name.startsWith('napi_') && !s.defined)).toBe(true);
    expect(classifyNativeModule(v8AbiAddon())).toEqual({
      kind: 'v8-abi',
      symbol: 'node_register_module_v1',
    });
  });

  it('reads macOS and Windows prebuilds by their export names', () => {
    const macho = Buffer.concat([
      Buffer.from([0xcf, 0xfa, 0xed, 0xfe]),
      Buffer.from('\0_napi_register_module_v1\0'),
    ]);
    expect(classifyNativeModule(macho)).toEqual({ kind: 'napi' });
    const pe = Buffer.concat([Buffer.from('MZ'), Buffer.from('\0node_register_module_v136\0')]);
    expect(classifyNativeModule(pe)).toEqual({
      kind: 'v8-abi',
      symbol: 'node_register_module_v136',
    });
    expect(classifyNativeModule(Buffer.from('MZ nothing here'))).toEqual({ kind: 'unknown' });
  });

  describe('a tree with a module that is not N-API', () => {
    let tree: string;
    const write = (file: string, data: string | Buffer) => {
      fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
      fs.writeFileSync(path.join(tree, file), data);
    };
    const pkg = (fields: Record<string, unknown>) => JSON.stringify(fields);

    beforeAll(() => {
      tree = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-napi-'));
      write(
        'package.json',
        pkg({
          name: 'app',
          dependencies: { 'good-addon': '1' },
          devDependencies: { 'dev-tool': '1' },
        }),
      );
      write(
        'node_modules/good-addon/package.json',
        pkg({ name: 'good-addon', dependencies: { 'old-addon': '1' } }),
      );
      write('node_modules/good-addon/prebuilds/addon.node', fs.readFileSync(REAL_ADDON));
      // Nested, as npm places a second version: reached through good-addon's dependencies.
      write(
        'node_modules/good-addon/node_modules/old-addon/package.json',
        pkg({ name: 'old-addon' }),
      );
      write('node_modules/good-addon/node_modules/old-addon/build/Release/old.node', v8AbiAddon());
      // A build tool with a V8-ABI binary is fine: it never ships in the app.
      write('node_modules/dev-tool/package.json', pkg({ name: 'dev-tool' }));
      write('node_modules/dev-tool/tool.node', v8AbiAddon());
    });
    afterAll(() => fs.rmSync(tree, { recursive: true, force: true }));

    it('names the module, the file and its registration', () => {
      const problems = describeProblems(checkNativeModules(tree));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        /^old-addon: node_modules\/good-addon\/node_modules\/old-addon\/build\/Release\/old\.node is built against Node's V8 ABI \(node_register_module_v1\)/,
      );
    });

    it('fails the command, and passes once the module is gone', () => {
      const failing = spawnSync(process.execPath, [SCRIPT, tree], { encoding: 'utf8' });
      expect(failing.status).toBe(1);
      expect(failing.stderr).toContain('old-addon');
      fs.rmSync(path.join(tree, 'node_modules/good-addon/node_modules/old-addon/build'), {
        recursive: true,
      });
      const passing = spawnSync(process.execPath, [SCRIPT, tree], { encoding: 'utf8' });
      expect(passing.status).toBe(0);
      expect(passing.stdout).toContain('1 .node files, all N-API (good-addon)');
    });
  });
});
