import path from 'node:path';
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
