/** Iteration counts and selected cases, from the command line. */

export const CASE_GROUPS = [
  'latency',
  'paths',
  'streaming',
  'concurrency',
  'throughput',
  'edit',
  'studio',
] as const;
export type CaseGroup = (typeof CASE_GROUPS)[number];

export interface Rounds {
  warmup: number;
  iterations: number;
}

export interface Plan {
  mode: 'quick' | 'full';
  groups: readonly CaseGroup[];
  /** Only cases whose id contains one of these (ids as in the JSON: latency.bridge.3840x2160). */
  caseFilter: readonly string[] | null;
  latency: { small: Rounds; large: Rounds };
  /** Rounds of blocks per variant in the no-wait cases (cases/paths.ts). */
  paths: { rounds: number };
  streaming: Rounds;
  /** Rounds per level: a 64 x 4K round takes over a minute on 2 cores. */
  concurrency: { levels: ReadonlyArray<{ n: number; iterations: number }> };
  throughput: { requests: number; concurrency: number; rounds: number };
  edit: Rounds;
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

export const USAGE = `Usage: npm run bench -- [options]

  --quick              a short run (about 2 minutes) for development
  --only <groups>      comma list of: ${CASE_GROUPS.join(', ')}
                       (studio: test/e2e/bench.spec.ts in Chromium with Playwright, about
                       20 s, --quick too; skipped with a warning without them)
  --case <ids>         comma list of case id fragments, e.g. latency.bridge.3840,concurrency.16,
                       paths.apiKey.3840 (paths: both upstream paths, as installed and with the
                       gallery off, against the floor, with a client that does not wait)
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
  while (args.length > 0) {
    const arg = args.shift()!;
    if (arg === '--quick') quick = true;
    else if (arg === '--verbose') verbose = true;
    else if (arg === '--profile') profile = true;
    else if (arg === '--heap-snapshot') heapSnapshot = true;
    else if (arg === '--gateway-flags')
      gatewayFlags = (args.shift() ?? '').split(/\s+/).filter(Boolean);
    else if (arg === '--help' || arg === '-h') return 'help';
    else if (arg === '--keep-api-images') {
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
    } else throw new Error(`unknown option ${arg}\n\n${USAGE}`);
  }
  return {
    mode: quick ? 'quick' : 'full',
    groups,
    caseFilter,
    latency: quick
      ? { small: { warmup: 2, iterations: 6 }, large: { warmup: 1, iterations: 3 } }
      : { small: { warmup: 3, iterations: 24 }, large: { warmup: 2, iterations: 10 } },
    // Four ways turn through every position in 8 rounds (roundOrder); --quick runs half of them.
    paths: { rounds: quick ? 4 : 8 },
    streaming: quick ? { warmup: 2, iterations: 6 } : { warmup: 3, iterations: 16 },
    // --quick leaves out 64 x 4K (over a minute per round here).
    concurrency: {
      levels: quick
        ? [{ n: 16, iterations: 2 }]
        : [
            { n: 16, iterations: 4 },
            { n: 64, iterations: 2 },
          ],
    },
    throughput: { requests: quick ? 120 : 200, concurrency: 16, rounds: quick ? 4 : 6 },
    edit: quick ? { warmup: 1, iterations: 2 } : { warmup: 2, iterations: 8 },
    verbose,
    keepApiImages,
    gatewayFlags,
    heapSnapshotDir: heapSnapshot ? 'bench-results/heap' : null,
    cpuProfileDir: profile ? 'bench-results/profiles' : null,
  };
}
