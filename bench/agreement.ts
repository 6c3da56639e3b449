import fs from 'node:fs';
import path from 'node:path';

/**
 * A verdict (pass/FAIL against a target) stands only when two full runs of the same tree on the
 * same machine reach it: one run can land in a noisy mode (a busy neighbour, a cold page cache),
 * two that agree are evidence. Each run writes its raw outcomes; this module finds the previous
 * comparable run and decides, case by case.
 */
export interface RunIdentity {
  /** `git rev-parse HEAD`, with `+dirty` when the work tree differs from it. */
  commit: string;
  /** Host name, CPU model and count, memory: the same machine as far as the figures care. */
  machine: string;
  mode: 'quick' | 'full';
  /** With --baseline: that checkout's commit; runs against different baselines never agree. */
  baseline?: string;
  /** With --pairs: how many pairs of gateways; only runs of the same kind decide together. */
  pairs?: number;
}

/** One case's raw outcome in one run (null: the case has no target). */
export type Outcome = boolean | null;

export interface PriorRun {
  file: string;
  identity: RunIdentity;
  outcomes: Record<string, Outcome>;
}

export type Agreement =
  | { kind: 'info' }
  | { kind: 'agrees'; pass: boolean; with: string }
  | { kind: 'differs'; with: string }
  | { kind: 'first'; reason: string }
  /** The run itself could not decide (report.ts `undecided`): no verdict whatever came before. */
  | { kind: 'undecided'; reason: string };

/**
 * Whether a previous run may decide with this one: a full run of the same commit on the same
 * machine, against the same baseline (or none).
 */
export function comparable(a: RunIdentity, b: RunIdentity): boolean {
  return (
    a.mode === 'full' &&
    b.mode === 'full' &&
    !a.commit.endsWith('+dirty') &&
    a.commit === b.commit &&
    a.machine === b.machine &&
    a.baseline === b.baseline &&
    a.pairs === b.pairs &&
    !(a.baseline ?? '').endsWith('+dirty')
  );
}

/** The verdict of one case against the previous comparable run (null when there is none). */
export function agree(
  id: string,
  outcome: Outcome,
  prior: PriorRun | null,
  self: RunIdentity,
): Agreement {
  if (outcome === null) return { kind: 'info' };
  if (self.mode !== 'full') return { kind: 'first', reason: 'quick run: no verdict' };
  if (self.commit.endsWith('+dirty') || (self.baseline ?? '').endsWith('+dirty'))
    return { kind: 'first', reason: 'uncommitted tree: no verdict' };
  if (prior === null)
    return { kind: 'first', reason: 'first full run of this tree: no verdict yet' };
  const before = Object.hasOwn(prior.outcomes, id) ? prior.outcomes[id] : undefined;
  if (before === undefined || before === null)
    return { kind: 'first', reason: `not in ${path.basename(prior.file)}: no verdict yet` };
  return before === outcome
    ? { kind: 'agrees', pass: outcome, with: path.basename(prior.file) }
    : { kind: 'differs', with: path.basename(prior.file) };
}

/** What the table shows for a case: pass/FAIL only when two runs agree. */
export function verdictText(a: Agreement, outcome: Outcome): string {
  switch (a.kind) {
    case 'info':
      return 'info';
    case 'agrees':
      return `${a.pass ? 'pass' : 'FAIL'}, agrees with ${a.with}`;
    case 'differs':
      return `differs: no verdict (${outcome ? 'pass' : 'FAIL'} here, not in ${a.with})`;
    case 'first':
      return `${outcome ? 'pass' : 'FAIL'}? (${a.reason})`;
    case 'undecided':
      return `no verdict: ${a.reason}`;
  }
}

/** The identity and outcomes a report file carries, or null when it is not one of ours. */
export function readPrior(file: string, text: string): PriorRun | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const identity = (parsed as { identity?: unknown }).identity;
  const rows = (parsed as { rows?: unknown }).rows;
  if (!isIdentity(identity) || !Array.isArray(rows)) return null;
  const outcomes: Record<string, Outcome> = Object.create(null) as Record<string, Outcome>;
  for (const row of rows as unknown[]) {
    if (typeof row !== 'object' || row === null) continue;
    const { id, pass } = row as { id?: unknown; pass?: unknown };
    if (typeof id === 'string' && (typeof pass === 'boolean' || pass === null)) outcomes[id] = pass;
  }
  return { file, identity, outcomes };
}

function isIdentity(value: unknown): value is RunIdentity {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.commit === 'string' &&
    typeof v.machine === 'string' &&
    (v.mode === 'quick' || v.mode === 'full') &&
    (v.baseline === undefined || typeof v.baseline === 'string') &&
    (v.pairs === undefined || typeof v.pairs === 'number')
  );
}

/**
 * The newest earlier run in `dir` that may decide with this one (report files are named by their
 * start time, so the names sort in time order; latest.json is a copy and is skipped).
 */
export function findPrior(dir: string, self: RunIdentity, before: string): PriorRun | null {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const candidates = names
    .filter((n) => n.endsWith('.json') && n !== 'latest.json' && n < before)
    .sort()
    .reverse();
  for (const name of candidates) {
    const file = path.join(dir, name);
    const prior = readPrior(file, fs.readFileSync(file, 'utf8'));
    if (prior && comparable(self, prior.identity)) return prior;
  }
  return null;
}
