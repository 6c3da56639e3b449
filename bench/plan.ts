/** Iteration counts and selected cases, from the command line. */
import path from 'node:path';

export const CASE_GROUPS = [
  'latency',
  'paths',
  'streaming',
  'concurrency',
  'throughput',
  'edit',
  'postgres',
  'studio',
] as const;
export type CaseGroup = (typeof CASE_GROUPS)[number];

/** A case's interleaved rounds (blocks.ts): `rounds` rounds of `block` calls per way. */
export interface Rounds {
  rounds: number;
  block: number;
}

export interface Plan {
  mode: 'quick' | 'full';
  groups: readonly CaseGroup[];
  /** Only cases whose id contains one of these (ids as in the JSON: latency.bridge.3840x2160). */
  caseFilter: readonly string[] | null;
  /** Untimed calls per way before a case's rounds (issue 26: at least 10 in a full run). */
  warmup: number;
  latency: { small: Rounds; large: Rounds };
  /** Rounds of blocks per variant in the no-wait cases (cases/paths.ts). */
  paths: { rounds: number };
  streaming: Rounds;
  /** Rounds per level: a 64 x 4K round takes over a minute on 2 cores. */
  concurrency: { levels: ReadonlyArray<{ n: number; iterations: number }> };
  throughput: { requests: number; concurrency: number; rounds: number };
  edit: Rounds;
  /** SQLite against PostgreSQL at 1024 (cases/postgres.ts). */
  postgres: Rounds;
  /**
   * Another checkout whose gateway runs as one more way in every case (baseline.ts), or null.
   * Absolute.
   */
  baseline: string | null;
  /**
   * With --baseline, the before/after question alone (`--pairs <n>`): in the one-at-a-time
   * groups (PAIRS_GROUPS), only this tree's gateway and the baseline's, one call each per round,
   * on `n` fresh pairs of gateway children per case, PAIR_ROUNDS rounds each, judged by the
   * interval of the pairs' ratios (versusBaseline.ts). Null otherwise.
   */
  pairs: number | null;
  verbose: boolean;
  /** The gateway's keep_api_images setting: on (the default) writes every image to the gallery. */
  keepApiImages: boolean;
  /** Extra Node flags for the gateway child (--gateway-flags "--trace-gc --max-semi-space-size=64"). */
  gatewayFlags: readonly string[];
  /** Write a heap snapshot of the gateway after the memory cases, into this folder. */
  heapSnapshotDir: string | null;
  /** Write a V8 CPU profile of the gateway child into this folder. */
  cpuProfileDir: string | null;
}

/** The groups --pairs runs: one call at a time, where one call's noise needs many rounds. */
export const PAIRS_GROUPS: readonly CaseGroup[] = ['latency', 'streaming'];
/** Rounds per pair of gateway children under --pairs: the 2-way order repeats every 4 rounds. */
export const PAIR_ROUNDS = 16;
/** Fewer pairs than this give no 90 % interval (interval.ts); more than this is a day. */
const PAIRS_MIN = 5;
const PAIRS_MAX = 100;

export const USAGE = `Usage: npm run bench -- [options]

  --quick              a short run (about 2 minutes) for development
  --only <groups>      comma list of: ${CASE_GROUPS.join(', ')}
                       (studio: test/e2e/bench.spec.ts in Chromium with Playwright, about
                       20 s, --quick too; skipped with a warning without them; postgres:
                       the gateway on a throwaway PostgreSQL 15 beside SQLite, skipped with a
                       warning without Debian's postgresql)
  --case <ids>         comma list of case id fragments, e.g. latency.bridge.3840,concurrency.16,
                       paths.apiKey.3840 (paths: both upstream paths, as installed and with the
                       gallery off, against the floor, with a client that does not wait)
  --baseline <dir>     also run the gateway of another checkout (e.g. the tree before a change)
                       as one more way in every case's rounds, and report installed / baseline
                       per case (target within 1.05x, judged by the 90 % interval of the
                       rounds' ratios); the checkout needs its own node_modules
  --pairs <n>          with --baseline: the before/after question alone, decided: in the
                       one-at-a-time groups (${PAIRS_GROUPS.join(', ')}), only this tree's gateway and
                       the baseline's, one call each per round, on n fresh pairs of gateway
                       children per case (started in turn, the first alternating), ${PAIR_ROUNDS}
                       rounds each; the interval is over the pairs (one child of the same code
                       differs from another by up to 1.2x here). --pairs 12: about 15 minutes
  --profile            also write a V8 CPU profile of the gateway child (bench-results/profiles/)
                       and print its top self-time functions; best combined with --only
  --keep-api-images <on|off>
                       the gallery keeps API callers' images (default on, as installed)
  --heap-snapshot      after each memory case (concurrency, edit) and a full GC, write a heap
                       snapshot of the gateway (bench-results/heap/) and print what retains
                       the large buffers still alive
  --gateway-flags <f>  extra Node flags for the gateway child, e.g. "--trace-gc"
  --verbose            show the gateway's log lines
  --help               this text
`;

export function parsePlan(argv: readonly string[]): Plan | 'help' {
  const args = [...argv];
  let quick = false;
  let groups: CaseGroup[] = [...CASE_GROUPS];
  let verbose = false;
  let profile = false;
  let caseFilter: string[] | null = null;
  let keepApiImages = true;
  let heapSnapshot = false;
  let gatewayFlags: string[] = [];
  let baseline: string | null = null;
  let pairs: number | null = null;
  let onlyGiven = false;
  while (args.length > 0) {
    const arg = args.shift()!;
    if (arg === '--quick') quick = true;
    else if (arg === '--verbose') verbose = true;
    else if (arg === '--profile') profile = true;
    else if (arg === '--heap-snapshot') heapSnapshot = true;
    else if (arg === '--gateway-flags')
      gatewayFlags = (args.shift() ?? '').split(/\s+/).filter(Boolean);
    else if (arg === '--help' || arg === '-h') return 'help';
    else if (arg === '--baseline') {
      const dir = args.shift();
      if (dir === undefined || dir === '' || dir.startsWith('--'))
        throw new Error('--baseline takes the folder of another checkout');
      baseline = path.resolve(dir);
    } else if (arg === '--pairs') {
      const n = Number(args.shift());
      if (!Number.isInteger(n) || n < PAIRS_MIN || n > PAIRS_MAX)
        throw new Error(`--pairs takes a whole number of pairs from ${PAIRS_MIN} to ${PAIRS_MAX}`);
      pairs = n;
    } else if (arg === '--keep-api-images') {
      const value = args.shift();
      if (value !== 'on' && value !== 'off') throw new Error('--keep-api-images takes on or off');
      keepApiImages = value === 'on';
    } else if (arg === '--case') {
      caseFilter = (args.shift() ?? '').split(',').filter(Boolean);
      if (caseFilter.length === 0)
        throw new Error('--case takes a comma list of case id fragments');
    } else if (arg === '--only') {
      const list = (args.shift() ?? '').split(',').filter(Boolean);
      const unknown = list.filter((g) => !(CASE_GROUPS as readonly string[]).includes(g));
      if (list.length === 0 || unknown.length > 0)
        throw new Error(`--only takes a comma list of ${CASE_GROUPS.join(', ')}`);
      groups = list as CaseGroup[];
      onlyGiven = true;
    } else throw new Error(`unknown option ${arg}\n\n${USAGE}`);
  }
  if (pairs !== null) {
    if (baseline === null) throw new Error('--pairs compares with a --baseline: give one');
    if (quick) throw new Error('--pairs is a run that decides: not with --quick');
    groups = onlyGiven ? groups.filter((g) => PAIRS_GROUPS.includes(g)) : [...PAIRS_GROUPS];
    if (groups.length === 0) throw new Error(`--pairs runs only ${PAIRS_GROUPS.join(', ')}`);
  }
  const fullRounds = baseline ? 10 : 8;
  const pairsRounds =
    pairs === null
      ? null
      : {
          small: { rounds: PAIR_ROUNDS, block: 1 },
          large: { rounds: PAIR_ROUNDS, block: 1 },
        };
  return {
    mode: quick ? 'quick' : 'full',
    groups,
    caseFilter,
    warmup: quick ? 3 : 10,
    // Four ways turn through every position in 8 rounds (roundOrder), five in 10 with
    // --baseline; --quick runs half of them.
    latency: pairsRounds ?? {
      small: { rounds: quick ? 4 : fullRounds, block: quick ? 2 : 3 },
      large: { rounds: quick ? 4 : fullRounds, block: 1 },
    },
    paths: { rounds: quick ? 4 : fullRounds },
    streaming:
      pairsRounds?.small ?? (quick ? { rounds: 4, block: 1 } : { rounds: fullRounds, block: 2 }),
    // --quick leaves out 64 x 4K (over a minute per round here). With --baseline, 6 rounds of
    // 16 x 4K: the before/after interval needs 5 at least.
    concurrency: {
      levels: quick
        ? [{ n: 16, iterations: 2 }]
        : [
            { n: 16, iterations: baseline ? 6 : 4 },
            { n: 64, iterations: 2 },
          ],
    },
    throughput: { requests: quick ? 120 : 200, concurrency: 16, rounds: quick ? 4 : 6 },
    edit: quick ? { rounds: 2, block: 1 } : { rounds: baseline ? 6 : 4, block: 2 },
    postgres: quick ? { rounds: 4, block: 3 } : { rounds: 8, block: 6 },
    baseline,
    pairs,
    verbose,
    keepApiImages,
    gatewayFlags,
    heapSnapshotDir: heapSnapshot ? 'bench-results/heap' : null,
    cpuProfileDir: profile ? 'bench-results/profiles' : null,
  };
}
