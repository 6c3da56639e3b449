import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The import graph of TypeScript files, as the compiler's pre-processor reads them: every
 * `import` and `export ... from` (type-only included), side-effect imports, `import()` and
 * `require()`. Only relative specifiers that name a file of the tree are edges; packages are not.
 */
export type ImportGraph = Map<string, Set<string>>;

const EXTENSIONS = ['.ts', '.tsx', '.mts', '/index.ts', '/index.tsx'];

function resolve(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, ...EXTENSIONS.map((ext) => base + ext)];
  if (specifier.endsWith('.js')) candidates.push(base.slice(0, -3) + '.ts');
  return candidates.find((file) => fs.existsSync(file) && fs.statSync(file).isFile()) ?? null;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    if (!entry.isFile() || !/\.(ts|tsx|mts)$/.test(entry.name) || entry.name.endsWith('.d.ts'))
      return [];
    return [path.join(entry.parentPath, entry.name)];
  });
}

/** The graph of every source file under `dir` (tests included unless `skip` says otherwise). */
export function importGraph(
  dir: string,
  skip: (file: string) => boolean = () => false,
): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of sourceFiles(dir)) {
    if (skip(file)) continue;
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(file, fileName);
      if (target && !skip(target)) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/**
 * The graph's cycles, one per strongly connected component of more than one node (or a node that
 * imports itself), each as its nodes in a cycle's order where one is easy to name (Tarjan).
 */
export function cyclesOf<T>(graph: Map<T, Set<T>>): T[][] {
  let counter = 0;
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const stack: T[] = [];
  const onStack = new Set<T>();
  const components: T[][] = [];
  const visit = (node: T): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: T[] = [];
      let member: T;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) components.push(component.reverse());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

/** The graph with each node replaced by `groupOf(node)` (edges inside a group dropped). */
export function collapse<T>(
  graph: Map<T, Set<T>>,
  groupOf: (node: T) => string,
): Map<string, Set<string>> {
  const groups = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const group = groupOf(from);
    const edges = groups.get(group) ?? new Set<string>();
    groups.set(group, edges);
    for (const target of targets) {
      const other = groupOf(target);
      if (other !== group) edges.add(other);
    }
  }
  return groups;
}
