// Charges each sample of a V8 CPU profile of the gateway to a stage of a request's life, by the
// innermost frame on its stack that belongs to one (docs/architecture.md, "A generation's path").
// Shared code (storage, core, bytes, src/shared, libraries) belongs to the stage that called it:
// a usage row's SQLite statement is the usage record's, a base64 piece the reader's or the
// reply's. Express's own frames (routing, req/res) are a stage of their own.
import fs from 'node:fs';
import { placeLocator, type CpuProfile, type Place } from '../profile';

/** Stages in the order a request meets them; first match wins. */
const STAGES: ReadonlyArray<readonly [string, RegExp]> = [
  [
    'guards',
    /^src\/gateway\/http\/(requestScope|securityHeaders|slowClients|hostGuard|originGuard|drain|app|server|studioRuns)\.ts$/,
  ],
  ['snapshots', /^src\/gateway\/(http\/freshSnapshots|liveSettings)\.ts$/],
  ['auth', /^src\/gateway\/(http\/(auth|studioSession)\.ts$|keys\/)/],
  ['limits', /^src\/gateway\/(http\/(keyLimits|keyConcurrency)\.ts$|limits\/)/],
  ['upstream read', /^src\/gateway\/(upstream\/|dispatch\/deliveryCheck\.ts$)/],
  ['dispatch', /^src\/gateway\/(dispatch\/|accounts\/|imageService\/run\.ts$)/],
  [
    'parse and plan',
    /^src\/gateway\/(http\/(routes\/|requestContext|imageBodies|parentImage)|validation\/|imageService\/|contentFilter\/|billing\/admission|openapi\/)/,
  ],
  ['reply write', /^src\/gateway\/http\/(replies\/|errorHandler\.ts$)/],
  ['gallery', /^src\/gateway\/gallery\//],
  [
    'usage record',
    /^src\/gateway\/(usage\/|http\/(usageRecorder|liveEvents)\.ts$|billing\/settle\.ts$)/,
  ],
  ['express', /^node_modules\/(express|router|body-parser|finalhandler|send|on-finished)\//],
];

/**
 * The storage port's code with no stage above it: a transaction's COMMIT runs after its `await`,
 * so the stage that opened it is no longer on the stack.
 */
const STORAGE_ALONE = 'database, caller not on the stack (COMMIT)';

/** The stages' names, in order, then the buckets of samples no stage claims. */
export const STAGE_NAMES = [
  ...STAGES.map(([name]) => name),
  'other gateway code',
  STORAGE_ALONE,
  'node, no gateway frame (HTTP parsing, sockets, timers)',
  'garbage collection',
  'V8 and native, no JS frame',
];

/** Shared code: its time belongs to the stage that called it. */
const SHARED =
  /^src\/(gateway\/(storage|core|bytes|billing)\/|gateway\/[^/]+\.ts$|shared\/)|^node_modules\//;

/** Where a frame's code is: its repository-relative source and line, through the source map. */
function stageOfSource(source: string): string | null {
  for (const [name, pattern] of STAGES) if (pattern.test(source)) return name;
  if (source.startsWith('src/gateway/') && !SHARED.test(source)) return 'other gateway code';
  return null;
}

export interface StageTimes {
  /** Microseconds of CPU per stage (idle excluded), in STAGE_NAMES order. */
  byStage: Map<string, number>;
  busyUs: number;
  /** Per stage, microseconds by the sample's own function (`name source`): where a stage's time goes. */
  leaves: Map<string, Map<string, number>>;
}

export function stageTimes(profileFile: string): StageTimes {
  const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const where = placeLocator();
  const memo = new Map<number, string | null>();
  const stageOf = (id: number): string | null => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const own = stageOfSource(where(byId.get(id)!.callFrame).source);
    const up = parent.get(id);
    const stage = own ?? (up === undefined ? null : stageOf(up));
    memo.set(id, stage);
    return stage;
  };
  const sourceMemo = new Map<number, { name: string; place: Place } | null>();
  const innermostSource = (id: number): { name: string; place: Place } | null => {
    const known = sourceMemo.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id)!.callFrame;
    const place = where(frame);
    const up = parent.get(id);
    const found = place.source.startsWith('src/')
      ? { name: frame.functionName || '(anonymous)', place }
      : up === undefined
        ? null
        : innermostSource(up);
    sourceMemo.set(id, found);
    return found;
  };
  const profilerMemo = new Map<number, boolean>();
  const inProfiler = (id: number): boolean => {
    const known = profilerMemo.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const own = byId.get(id)!.callFrame.url === 'node:inspector';
    const result = own || (up !== undefined && inProfiler(up));
    profilerMemo.set(id, result);
    return result;
  };
  const byStage = new Map<string, number>(STAGE_NAMES.map((name) => [name, 0]));
  const leaves = new Map<string, Map<string, number>>(STAGE_NAMES.map((name) => [name, new Map()]));
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!.callFrame;
    const name = frame.functionName;
    // Idle, and the profiler's own work (its start and stop calls land in the profile).
    if (name === '(idle)' || inProfiler(id)) return;
    busyUs += us;
    const stage =
      stageOf(id) ??
      (innermostSource(id)?.place.source.startsWith('src/gateway/storage/')
        ? STORAGE_ALONE
        : null) ??
      (name === '(garbage collector)'
        ? 'garbage collection'
        : name === '(program)'
          ? 'V8 and native, no JS frame'
          : 'node, no gateway frame (HTTP parsing, sockets, timers)');
    byStage.set(stage, byStage.get(stage)! + us);
    const at = where(frame);
    const caller = at.source.startsWith('src/') ? null : innermostSource(id);
    const leaf =
      `${name || '(anonymous)'} ${at.source}:${at.line}` +
      (caller ? ` <- ${caller.name} ${caller.place.source}:${caller.place.line}` : '');
    const ofStage = leaves.get(stage)!;
    ofStage.set(leaf, (ofStage.get(leaf) ?? 0) + us);
  });
  return { byStage, busyUs, leaves };
}
