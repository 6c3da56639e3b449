import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import config from '../../electron-builder.config.mjs';
import { resolveDataDir } from '../../src/gateway/core/dataDir';
import { checkNativeModules } from '../../scripts/native-modules.mjs';

/**
 * What can be checked of the installers without building one (that needs Electron's download,
 * which these machines cannot make): the electron-builder config, against the real dependency
 * tree and the real sources. The built output is checked in test/e2e/packaging.spec.ts, after the
 * e2e suite's build.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  productName: string;
  main: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};

/** Bare package names imported by the TypeScript under `dir` (tests excluded). */
function importedPackages(dir: string): Set<string> {
  const names = new Set<string>();
  const visit = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(file);
      // Tests and their helpers (testing.ts) are not part of the app.
      else if (/\.tsx?$/.test(entry.name) && !/(\.test\.tsx?|^testing\.ts)$/.test(entry.name)) {
        const source = fs.readFileSync(file, 'utf8');
        for (const m of source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^'.][^']*)'/gm)) {
          if (/^import\s+type\s/.test(m[0].trim())) continue;
          names.add(packageName(m[1]!));
        }
        for (const m of source.matchAll(/\bimport\(\s*'([^'.][^']*)'\s*\)/g))
          names.add(packageName(m[1]!));
        // A package loaded on first use through Node's require (storage/postgresEngine.ts: pg).
        for (const m of source.matchAll(/\bcreateRequire\([^)]*\)\(\s*'([^'.][^']*)'\s*\)/g))
          names.add(packageName(m[1]!));
      }
    }
  };
  visit(dir);
  return names;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const isBuiltin = (name: string) => name.startsWith('node:') || builtinModules.includes(name);

describe('the installer configuration (electron-builder.config.mjs)', () => {
  it('names the app as the data folder is named, so updates keep people’s data', () => {
    expect(config.productName).toBe('Atelier');
    expect(pkg.productName).toBe(config.productName);
    expect(config.appId).toBe('app.atelier.studio');
    // The CLI's default folder is the one Electron derives from productName.
    expect(path.basename(resolveDataDir(undefined, {}, 'linux', '/home/ada'))).toBe('Atelier');
  });

  it('builds the installers people expect on each platform', () => {
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
    expect(fs.existsSync(path.join(ROOT, config.icon as string))).toBe(true);
    expect(pkg.scripts.dist).toContain('electron-builder --config electron-builder.config.mjs');
    // The native check runs before every installer build.
    expect(pkg.scripts.dist).toContain('scripts/native-modules.mjs');
  });

  it('ships the built app and nothing of the dev tree', () => {
    const files = config.files as string[];
    const included = (file: string) => {
      let keep = false;
      for (const pattern of files) {
        if (pattern.startsWith('!')) {
          if (minimatch(file, pattern.slice(1), { dot: true })) keep = false;
        } else if (minimatch(file, pattern, { dot: true })) keep = true;
      }
      return keep;
    };
    for (const file of [
      'out/main/index.js',
      'out/preload/index.cjs',
      'out/renderer/index.html',
      'package.json',
    ]) {
      expect(included(file), file).toBe(true);
    }
    for (const file of [
      'src/main/index.ts',
      'src/gateway/index.ts',
      'test/main/app.test.ts',
      'bench/main.ts',
      'docs/api.md',
      'scripts/test.mjs',
      'out/node/cli.mjs', // the CLI bundle is for npx atelier, not the app
      'out/main/index.js.map',
      '.tools/node-24.21.0-linux-x64/bin/node',
      'playwright.config.ts',
    ]) {
      expect(included(file), file).toBe(false);
    }
    expect(pkg.main).toBe('out/main/index.js');
  });

  it('keeps every native module outside the asar', () => {
    const natives = checkNativeModules(ROOT).map((c) => c.file);
    expect(natives.length).toBeGreaterThan(0);
    const unpacked = config.asarUnpack as string[];
    for (const file of natives) {
      expect(
        unpacked.some((pattern) => minimatch(file, pattern, { dot: true })),
        file,
      ).toBe(true);
      // …and the files filter does not drop it.
      const dropped = (config.files as string[])
        .filter((p) => p.startsWith('!'))
        .some((p) => minimatch(file, p.slice(1), { dot: true }));
      expect(dropped, file).toBe(false);
    }
    expect(config.npmRebuild).toBe(false);
  });

  it('sets Electron’s fuses', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
  });

  it('lists exactly what the app imports at run time as dependencies, and no dev-only package', () => {
    const runtime = new Set(
      ['src/main', 'src/preload', 'src/gateway', 'src/simulator', 'src/shared'].flatMap((dir) => [
        ...importedPackages(path.join(ROOT, dir)),
      ]),
    );
    const external = [...runtime].filter((name) => !isBuiltin(name) && name !== 'electron');
    // Whatever main, the gateway or the simulator import must ship.
    for (const name of external) expect(pkg.dependencies, name).toHaveProperty([name]);
    // The renderer is bundled by Vite: its packages (react, zustand, …) are build inputs.
    const notImported = Object.keys(pkg.dependencies).filter((name) => !runtime.has(name));
    expect(notImported).toEqual([]);
    for (const devOnly of [
      'electron',
      'electron-builder',
      'react',
      'vite',
      'typescript',
      'vitest',
    ]) {
      expect(pkg.dependencies).not.toHaveProperty([devOnly]);
    }
    // electron-builder reads Electron's version from here: an exact one.
    expect(pkg.devDependencies.electron).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
