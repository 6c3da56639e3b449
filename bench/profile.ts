import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  name: string;
  location: string;
  selfMs: number;
  share: number;
}

/** Where a profile frame's code is: its source file (from src/ or node_modules/ on) and line. */
export interface Place {
  source: string;
  line: number;
}

/**
 * Maps bundle positions back to src/ through the bundle's source map, when there is one (each
 * map read once per locator); a frame of no file (a Node builtin) keeps its url.
 */
export function placeLocator(): (frame: CallFrame) => Place {
  const maps = new Map<string, SourceMap | null>();
  return (frame) => {
    if (!frame.url.startsWith('file://')) return { source: frame.url, line: frame.lineNumber + 1 };
    const file = new URL(frame.url).pathname;
    if (!maps.has(file)) {
      const mapFile = `${file}.map`;
      maps.set(
        file,
        fs.existsSync(mapFile) ? new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8'))) : null,
      );
    }
    const entry = maps.get(file)?.findEntry(frame.lineNumber, frame.columnNumber) as
      { originalSource?: string; originalLine?: number } | undefined;
    const source = entry?.originalSource ?? file;
    const at = source.search(/(src|node_modules)\//);
    return {
      source: at === -1 ? source : source.slice(at),
      line: (entry?.originalSource ? (entry.originalLine ?? 0) : frame.lineNumber) + 1,
    };
  };
}

/** The same as `file:line` text; empty for a frame of no url (the profiler's own nodes). */
function locator(): (frame: CallFrame) => string {
  const place = placeLocator();
  return (frame) => {
    if (!frame.url) return '';
    const { source, line } = place(frame);
    return `${source}:${line}`;
  };
}

export interface ProfileSummary {
  /** Sampled time, idle included. */
  totalMs: number;
  /** Sampled time minus (idle). */
  busyMs: number;
  /** Functions by self time (samples whose top frame they are); shares of busy time. */
  self: SelfTime[];
  /**
   * Busy time by the innermost src/ function on the stack: native work (indexOf, copies, the
   * garbage collector excepted) is charged to the gateway code that asked for it.
   */
  bySource: SelfTime[];
}

const IDLE = '(idle)';

export function summariseProfile(profileFile: string, limit = 20): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  const where = locator();
  const located = new Map<number, string>();
  const locate = (id: number) => {
    let text = located.get(id);
    if (text === undefined) {
      text = where(byId.get(id)!.callFrame);
      located.set(id, text);
    }
    return text;
  };
  const self = new Map<string, SelfTime>();
  const bySource = new Map<string, SelfTime>();
  const add = (into: Map<string, SelfTime>, name: string, location: string, us: number) => {
    const key = `${name} ${location}`;
    const entry = into.get(key) ?? { name, location, selfMs: 0, share: 0 };
    entry.selfMs += us / 1000;
    into.set(key, entry);
  };
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const name = frame.functionName || '(anonymous)';
    totalUs += us;
    if (name === IDLE) {
      idleUs += us;
      continue;
    }
    add(self, name, locate(id), us);
    let owner: number | undefined = id;
    while (owner !== undefined && !locate(owner).startsWith('src/')) owner = parent.get(owner);
    if (owner === undefined) add(bySource, name, locate(id), us);
    else add(bySource, byId.get(owner)!.callFrame.functionName || '(anonymous)', locate(owner), us);
  }
  const busyMs = (totalUs - idleUs) / 1000;
  const rank = (entries: Map<string, SelfTime>) =>
    [...entries.values()]
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, limit)
      .map((e) => ({ ...e, share: e.selfMs / busyMs }));
  return { totalMs: totalUs / 1000, busyMs, self: rank(self), bySource: rank(bySource) };
}

/** The .cpuprofile files written in a folder since `sinceMs`, oldest first (one per gateway child). */
export function profilesSince(dir: string, sinceMs: number): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).mtimeMs >= sinceMs)
    .sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
}
