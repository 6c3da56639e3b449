import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { GATEWAY_LAYERS, ROOT, mayImport } from '../../eslint/layers.mjs';
import { collapse, cyclesOf, importGraph } from '../support/importGraph';

const src = path.resolve(import.meta.dirname, '../../src');
const gatewayDir = path.join(src, 'gateway');
const relative = (file: string) => path.relative(src, file);

/** Tests and their support compose what they need; the layers hold for the rest. */
const isTest = (file: string) => /\.test\.tsx?$/.test(file) || path.basename(file) === 'testing.ts';

/** A gateway file's folder (its layer), ROOT for the composition at its root. */
function folderOf(file: string): string {
  const parts = path.relative(gatewayDir, file).split(path.sep);
  if (parts[0] === '..') return 'outside';
  return parts.length > 1 ? parts[0]! : ROOT;
}

describe('the import graph of src/', () => {
  it('has no cycle, counting type-only and side-effect imports', () => {
    const graph = importGraph(src);
    expect(graph.size).toBeGreaterThan(300);
    expect(cyclesOf(graph).map((cycle) => cycle.map(relative).join(' -> '))).toEqual([]);
  });

  it("forms no loop among the gateway's folders", () => {
    const folders = collapse(importGraph(gatewayDir, isTest), folderOf);
    expect(folders.size).toBeGreaterThan(15);
    expect(cyclesOf(folders)).toEqual([]);
  });

  it('has every folder-to-folder import of the gateway on the allow-list of eslint/layers.mjs', () => {
    const folders = collapse(importGraph(gatewayDir, isTest), folderOf);
    const offending = [...folders].flatMap(([from, targets]) =>
      [...targets]
        .filter((to) => to !== 'outside' && !mayImport(from, to))
        .map((to) => `${from} -> ${to}`),
    );
    expect(offending).toEqual([]);
    expect([...folders.keys()].filter((f) => f !== 'outside' && !(f in GATEWAY_LAYERS))).toEqual(
      [],
    );
  });
});

/** The value imports of a file (not `import type`, nor only type specifiers), resolved. */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.flatMap((node) => {
    if (!ts.isImportDeclaration(node) || !ts.isStringLiteral(node.moduleSpecifier)) return [];
    const clause = node.importClause;
    if (clause?.isTypeOnly) return [];
    const bindings = clause?.namedBindings;
    const onlyTypes =
      clause !== undefined &&
      clause.name === undefined &&
      bindings !== undefined &&
      ts.isNamedImports(bindings) &&
      bindings.elements.length > 0 &&
      bindings.elements.every((element) => element.isTypeOnly);
    if (onlyTypes) return [];
    return [path.resolve(path.dirname(file), node.moduleSpecifier.text)];
  });
}

const gatewayFiles = (folder: string) =>
  fs
    .readdirSync(path.join(gatewayDir, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !isTest(file));

describe('what the HTTP layer leaves to the image service (issue 24)', () => {
  it('http/ runs neither the content filter nor dispatch: it imports their types at most', () => {
    const files = gatewayFiles('http');
    expect(files.length).toBeGreaterThan(30);
    const below = ['contentFilter', 'dispatch'].map((folder) => path.join(gatewayDir, folder));
    const offending = files.flatMap((file) =>
      valueImports(file)
        .filter((target) => below.some((folder) => target.startsWith(folder + path.sep)))
        .map((target) => `${relative(file)} -> ${relative(target)}`),
    );
    expect(offending).toEqual([]);
  });

  it('the size rules are checked in validation/ only: everywhere else reads its RequestedSize', () => {
    const callers = fs
      .readdirSync(gatewayDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name))
      .map((entry) => path.join(entry.parentPath, entry.name))
      .filter((file) => !isTest(file) && /\bcheckSize\(/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(gatewayDir, file).split(path.sep)[0]);
    expect(callers.length).toBeGreaterThan(0);
    expect([...new Set(callers)]).toEqual(['validation']);
  });
});

describe('the cycle finder', () => {
  it('finds a loop of two, of three and a self-import, and nothing in a tree', () => {
    const graph = new Map<string, Set<string>>([
      ['a', new Set(['b'])],
      ['b', new Set(['a', 'c'])],
      ['c', new Set(['d'])],
      ['d', new Set(['e'])],
      ['e', new Set(['c'])],
      ['f', new Set(['f'])],
      ['g', new Set(['a'])],
    ]);
    const cycles = cyclesOf(graph).map((cycle) => [...cycle].sort().join(''));
    expect(cycles.sort()).toEqual(['ab', 'cde', 'f']);
    expect(cyclesOf(new Map([['x', new Set(['y'])]]))).toEqual([]);
  });
});
