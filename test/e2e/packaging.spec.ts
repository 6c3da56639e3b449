import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { expect, test } from '@playwright/test';

/**
 * The built desktop app, as an installer would pack it (electron-builder.config.mjs packs out/main,
 * out/preload and out/renderer plus the production dependencies). Here because the e2e suite's
 * global setup has just built it; test/packaging/installer.test.ts checks the config itself.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  main: string;
  dependencies: Record<string, string>;
};

/** The bare specifiers a bundle still loads at run time (everything else was bundled in). */
function runtimeImports(file: string): Set<string> {
  const code = fs.readFileSync(file, 'utf8');
  const names = new Set<string>();
  // A specifier is one token: no space, quote, parenthesis or semicolon. (Without that, the
  // bundle's `nonEmpty("from");` read as `from "` followed by code up to the next quote.)
  const spec = String.raw`["']([^"'./\s();][^"'\s();]*)["']`;
  const patterns = [
    new RegExp(String.raw`\bfrom\s*${spec}`, 'g'),
    new RegExp(String.raw`\bimport\s*${spec}`, 'g'),
    new RegExp(String.raw`\bimport\(\s*${spec}\s*\)`, 'g'),
    new RegExp(String.raw`\brequire\(\s*${spec}\s*\)`, 'g'),
  ];
  for (const pattern of patterns) {
    for (const m of code.matchAll(pattern)) {
      const parts = m[1]!.split('/');
      names.add(m[1]!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
    }
  }
  return names;
}

const isBuiltin = (name: string) => name.startsWith('node:') || builtinModules.includes(name);

test('the main entry exists and loads only shipped packages', () => {
  const main = path.join(ROOT, pkg.main);
  expect(fs.existsSync(main)).toBe(true);
  const external = [...runtimeImports(main)].filter((n) => !isBuiltin(n) && n !== 'electron');
  expect(external.length).toBeGreaterThan(0);
  for (const name of external) expect(pkg.dependencies, name).toHaveProperty([name]);
});

test('the preload is one CommonJS file that needs only electron', () => {
  const preload = path.join(ROOT, 'out/preload/index.cjs');
  expect(fs.existsSync(preload)).toBe(true);
  expect([...runtimeImports(preload)]).toEqual(['electron']);
});

test('the studio is built with its assets and the CSP', () => {
  const html = fs.readFileSync(path.join(ROOT, 'out/renderer/index.html'), 'utf8');
  expect(html).toContain("base-uri 'none'");
  const assets = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets.length).toBeGreaterThan(0);
  for (const asset of assets)
    expect(fs.existsSync(path.join(ROOT, 'out/renderer', asset)), asset).toBe(true);
});
