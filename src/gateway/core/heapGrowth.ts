import v8 from 'node:v8';

/**
 * How much V8 lets the old generation grow past what the last full collection kept before it
 * starts the next one: 200 % (a limit of three times the live heap) instead of its own factor,
 * which settles near 1.8 for the gateway.
 *
 * Why: the gateway keeps about 30 MB alive and makes short-lived garbage fast (a small image's
 * base64 is decoded through 64 KB strings), so V8 grows the young generation to its 32 MB maximum.
 * V8 starts marking the old generation as soon as the room left under its limit is smaller than
 * the young generation; with a 1.8 factor that room (about 25 MB) never is larger, and a full
 * collection ran every 3-5 requests whatever they allocated. Measured with 200 small images at
 * 16 at once (docs/benchmarks.md, "Full collections and the heap's growth"): 200-221 full
 * collections per run became 91-99, and the rate went from 0.52-0.54x to 0.57-0.63x of the
 * floor's; the peak RSS of 16 x 4K at once did not grow. 300 % collected no less than 200.
 */
export const HEAP_GROWING_PERCENT = 200;

const FLAG = '--heap-growing-percent';

export type HeapGrowthDecision =
  { applied: true; flag: string } | { applied: false; reason: 'electron' | 'command line' };

/**
 * Whether to set the flag in this process, and why not. Not in Electron: V8's flags may be frozen
 * once its main process runs (embedders that freeze them abort on a later set, as NW.js does),
 * Electron cannot run on the machines this is tested on, and the desktop app's gateway serves one
 * person, not a burst. Not when the command line sets it: the operator's choice stands
 * (`node --heap-growing-percent=50 ...`).
 */
export function heapGrowthDecision(
  versions: NodeJS.ProcessVersions,
  execArgv: readonly string[],
): HeapGrowthDecision {
  if (versions.electron !== undefined) return { applied: false, reason: 'electron' };
  if (execArgv.some((arg) => arg === FLAG || arg.startsWith(`${FLAG}=`)))
    return { applied: false, reason: 'command line' };
  return { applied: true, flag: `${FLAG}=${HEAP_GROWING_PERCENT}` };
}

/**
 * Sets HEAP_GROWING_PERCENT for this process unless heapGrowthDecision says not to. The flag is
 * process-wide and read each time V8 computes the next limit, so it acts from the next full
 * collection on; setting it again is harmless. Returns what was decided.
 */
export function tuneHeapGrowth(
  set: (flags: string) => void = v8.setFlagsFromString,
  where: Pick<NodeJS.Process, 'versions' | 'execArgv'> = process,
): HeapGrowthDecision {
  const decision = heapGrowthDecision(where.versions, where.execArgv);
  if (decision.applied) set(decision.flag);
  return decision;
}
