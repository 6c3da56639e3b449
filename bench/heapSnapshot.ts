import fs from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      edge_fields: string[];
      node_types: [string[]];
      edge_types: [string[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface Retained {
  /** Bytes of the large backing stores retained along this path. */
  bytes: number;
  count: number;
  /** From the store up towards a GC root: `type name` of each retainer, with the edge name. */
  path: string[];
}

/**
 * What keeps large memory alive after a case: for every node of at least `minBytes` self size
 * (ArrayBuffer backing stores, big strings), the first strong retainer chain up to a root, and the
 * chains grouped. A heap snapshot holds no buffer contents, only their sizes, so this is cheap to
 * write even when gigabytes are retained.
 */
export function retainedBy(
  file: string,
  minBytes = 4 * 1024 * 1024,
  depth = 12,
): { totalBytes: number; retained: Retained[] } {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields: nf, edge_fields: ef, node_types: nt, edge_types: et } = snap.snapshot.meta;
  const N = nf.length;
  const E = ef.length;
  const iType = nf.indexOf('type');
  const iName = nf.indexOf('name');
  const iSize = nf.indexOf('self_size');
  const iEdges = nf.indexOf('edge_count');
  const eType = ef.indexOf('type');
  const eName = ef.indexOf('name_or_index');
  const eTo = ef.indexOf('to_node');
  const nodeTypes = nt[0];
  const edgeTypes = et[0];
  const count = snap.nodes.length / N;

  // Reverse edges: for each node, (from node, edge index) of its retainers.
  const retainers: Array<Array<[number, number]>> = Array.from({ length: count }, () => []);
  let edge = 0;
  for (let n = 0; n < count; n += 1) {
    const edges = snap.nodes[n * N + iEdges]!;
    for (let k = 0; k < edges; k += 1, edge += 1) {
      const to = snap.edges[edge * E + eTo]! / N;
      const type = edgeTypes[snap.edges[edge * E + eType]!]!;
      if (type === 'weak') continue;
      retainers[to]!.push([n, edge]);
    }
  }
  const label = (n: number) => {
    const type = nodeTypes[snap.nodes[n * N + iType]!]!;
    const name = snap.strings[snap.nodes[n * N + iName]!] ?? '';
    return `${type} ${name.slice(0, 60)}`;
  };
  const edgeLabel = (e: number) => {
    const type = edgeTypes[snap.edges[e * E + eType]!]!;
    const nameOrIndex = snap.edges[e * E + eName]!;
    const name =
      type === 'element' || type === 'hidden'
        ? `[${nameOrIndex}]`
        : (snap.strings[nameOrIndex] ?? '');
    return `${type}:${name}`;
  };

  const groups = new Map<string, Retained>();
  let totalBytes = 0;
  for (let n = 0; n < count; n += 1) {
    const size = snap.nodes[n * N + iSize]!;
    totalBytes += size;
    if (size < minBytes) continue;
    const path = [label(n)];
    const seen = new Set([n]);
    let at = n;
    for (let d = 0; d < depth; d += 1) {
      // Prefer a retainer that is not a plain system/internal node, when there is one.
      const options = retainers[at]!.filter(([from]) => !seen.has(from));
      const pick = options.find(([from]) => !label(from).startsWith('synthetic')) ?? options[0];
      if (!pick) break;
      path.push(`<- ${edgeLabel(pick[1])} ${label(pick[0])}`);
      seen.add(pick[0]);
      at = pick[0];
    }
    const key = path.slice(1).join(' ');
    const group = groups.get(key) ?? { bytes: 0, count: 0, path };
    group.bytes += size;
    group.count += 1;
    groups.set(key, group);
  }
  return { totalBytes, retained: [...groups.values()].sort((a, b) => b.bytes - a.bytes) };
}
