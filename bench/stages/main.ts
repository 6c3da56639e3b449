// `npm run bench:stages`: the CPU one small request costs the gateway, stage by stage (issue 26
// item 3). The simulator and the gateway each run in a process of their own; this process is the
// client. Per kind of key: warm-up requests, then a V8 CPU profile of the gateway (100 µs
// sampling) over a run of small generations sent one at a time (or --concurrency at once),
// lasting until each is settled and its image kept. Each sample is charged to a stage (attribution.ts); the table gives CPU per
// request by stage, and the gateway process's own CPU (user + system) per request beside it.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { databasePath } from '../../src/gateway/core/dataDir';
import { freshBenchDir } from '../dataRoot';
import { createKeysRepository, type NewApiKey } from '../../src/gateway/keys/repository';
import { openDatabase } from '../../src/gateway/storage/db';
import { SETTINGS } from '../../src/gateway/storage/settings';
import { openSettingsRepository } from '../../src/gateway/storage/settingsRepository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { STAGE_NAMES, stageTimes } from './attribution';
import type { FromStagesGateway, StagesSimulatorReady, ToStagesGateway, Totals } from './protocol';

const USAGE = `npm run bench:stages -- [--requests N] [--warmup N] [--keys plain,budget,limited] [--gallery off]
  --requests  measured requests per kind of key (default 300)
  --warmup    warm-up requests per kind of key (default 30)
  --keys      which keys: plain (no limits), budget (a monthly budget), limited (budget,
              requests per minute and images per day); default all three
  --gallery   off: the gallery keeps no API image (keep_api_images false); default on, as installed
  --concurrency  requests in flight at once (default 1: one at a time)
  --rounds    profiled runs per kind of key, the kinds taking turns; each figure is the median
              run's (default 3)
  --detail    also list, per stage, the functions its samples were in (the first kind of key)`;

/** What a key of each kind may do: far more than the benchmark asks, so nothing is refused. */
const KEY_KINDS: Record<string, NewApiKey> = {
  plain: { name: 'stages-plain' },
  budget: { name: 'stages-budget', budgetMicros: 1_000_000_000_000, budgetPeriod: 'month' },
  limited: {
    name: 'stages-limited',
    budgetMicros: 1_000_000_000_000,
    budgetPeriod: 'month',
    rpmLimit: 1_000_000,
    imagesPerDay: 1_000_000,
  },
};

/** The small request: the smallest image the models make, at low quality. */
const BODY = JSON.stringify({
  model: 'image-model-2',
  prompt: 'a lighthouse at dusk',
  size: '1024x1024',
  quality: 'low',
  n: 1,
});

interface Options {
  requests: number;
  warmup: number;
  keys: string[];
  gallery: boolean;
  detail: boolean;
  concurrency: number;
  rounds: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    requests: 300,
    warmup: 30,
    keys: Object.keys(KEY_KINDS),
    gallery: true,
    detail: false,
    concurrency: 1,
    rounds: 3,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    const count = () => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${arg} needs a whole number\n${USAGE}`);
      i++;
      return n;
    };
    if (arg === '--requests') options.requests = count();
    else if (arg === '--warmup') options.warmup = count();
    else if (arg === '--concurrency') options.concurrency = count();
    else if (arg === '--rounds') options.rounds = count();
    else if (arg === '--keys') {
      options.keys = (value ?? '').split(',');
      const unknown = options.keys.filter((k) => !Object.hasOwn(KEY_KINDS, k));
      if (unknown.length || !options.keys.length)
        throw new Error(`unknown key kind ${unknown.join(',')}\n${USAGE}`);
      i++;
    } else if (arg === '--detail') options.detail = true;
    else if (arg === '--gallery' && (value === 'on' || value === 'off')) {
      options.gallery = value === 'on';
      i++;
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  return options;
}

const here = path.dirname(fileURLToPath(import.meta.url));

function child(name: string): ChildProcess {
  const proc = fork(path.join(here, `${name}.mjs`), [], {
    execArgv: ['--enable-source-maps'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  proc.on('exit', (code) => {
    if (code !== 0 && code !== null) {
      process.stderr.write(`the ${name} child exited with ${code}\n`);
      process.exit(1);
    }
  });
  return proc;
}

function next<T extends { type: string }>(proc: ChildProcess, type: T['type']): Promise<T> {
  return new Promise((resolve) => {
    const on = (message: T) => {
      if (message.type !== type) return;
      proc.off('message', on);
      resolve(message);
    };
    proc.on('message', on);
  });
}

const agent = new http.Agent({ keepAlive: true });

/** `count` generations, `concurrency` at a time. */
async function generateMany(url: URL, key: string, count: number, concurrency: number) {
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent += 1;
      await generate(url, key);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** One generation; resolves with its status once the whole body is in. */
function generate(url: URL, key: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(BODY),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          if (res.statusCode === 200) resolve();
          else reject(new Error(`${res.statusCode}: ${Buffer.concat(chunks).toString()}`));
        });
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

/** The functions each stage's samples were in, by CPU per request (the ten largest). */
function printLeaves(leaves: Map<string, Map<string, number>>, requests: number): void {
  for (const [stage, byLeaf] of leaves) {
    const top = [...byLeaf].sort((a, b) => b[1] - a[1]).slice(0, 10);
    if (top.length === 0) continue;
    console.log(`  ${stage}:`);
    for (const [leaf, us] of top)
      console.log(`    ${(us / requests).toFixed(0).padStart(7)} µs  ${leaf}`);
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dataDir = freshBenchDir('atelier-stages-');
  const simulator = child('simulator');
  const gateway = child('gateway');
  try {
    const keys = new Map<string, string>();
    const db = openDatabase(databasePath(dataDir));
    try {
      const repository = createKeysRepository(sqliteEngine(db));
      for (const kind of options.keys)
        keys.set(kind, (await repository.create(KEY_KINDS[kind]!)).key);
      const settings = await openSettingsRepository(sqliteEngine(db));
      await settings.set(SETTINGS.keepApiImages, options.gallery);
    } finally {
      db.close();
    }
    const sim = await next<StagesSimulatorReady>(simulator, 'ready');
    const ready = next<Extract<FromStagesGateway, { type: 'ready' }>>(gateway, 'ready');
    const send = (message: ToStagesGateway) => gateway.send(message);
    send({ type: 'start', config: { dataDir, upstreamBaseUrl: `${sim.url}/v1` } });
    const url = new URL('/v1/images/generations', (await ready).url);

    const totals: Totals = { settled: 0, images: 0 };
    const expect = (requests: number) => {
      totals.settled += requests;
      if (options.gallery) totals.images += requests;
      return { ...totals };
    };
    console.log(
      `CPU of the gateway process per small request (median of ${options.rounds} runs of ${options.requests} requests per key after ` +
        `${options.warmup} warm-up, ${options.concurrency} at a time, 1024x1024 low, gallery ${options.gallery ? 'on' : 'off'}), µs`,
    );
    const columns = options.keys;
    type Run = Map<string, number>;
    const runs = new Map<string, Run[]>(columns.map((kind) => [kind, []]));
    for (const kind of columns) {
      await generateMany(url, keys.get(kind)!, options.warmup, options.concurrency);
      const quiet = next(gateway, 'quiet');
      send({ type: 'quiesce', totals: expect(options.warmup) });
      await quiet;
    }
    // Rounds in turn, so a change in the machine's load falls on every kind of key alike.
    for (let round = 0; round < options.rounds; round++) {
      for (const kind of columns) {
        const profiling = next(gateway, 'profiling');
        const profiled = next<Extract<FromStagesGateway, { type: 'profiled' }>>(
          gateway,
          'profiled',
        );
        send({ type: 'profile', until: expect(options.requests) });
        await profiling;
        await generateMany(url, keys.get(kind)!, options.requests, options.concurrency);
        const done = await profiled;
        const { byStage, busyUs, leaves } = stageTimes(done.file);
        if (options.detail && round === 0 && kind === columns[0])
          printLeaves(leaves, options.requests);
        fs.rmSync(path.dirname(done.file), { recursive: true, force: true });
        const per = (us: number) => us / options.requests;
        runs
          .get(kind)!
          .push(
            new Map([
              ...[...byStage].map(([stage, us]) => [stage, per(us)] as const),
              ['profiled, busy', per(busyUs)],
              ['process CPU, user', per(done.cpuUserUs)],
              ['process CPU, system', per(done.cpuSystemUs)],
              ['wall time', per(done.wallMs * 1000)],
            ]),
          );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const figure = (kind: string, row: string) =>
      median(runs.get(kind)!.map((run) => run.get(row)!));
    const rows = [...runs.get(columns[0]!)![0]!.keys()];
    const width = Math.max(...STAGE_NAMES.map((s) => s.length)) + 2;
    const line = (label: string, values: number[]) =>
      console.log(`${label.padEnd(width)}${values.map((v) => v.toFixed(0).padStart(10)).join('')}`);
    console.log(`${'stage'.padEnd(width)}${columns.map((c) => c.padStart(10)).join('')}`);
    for (const row of rows)
      line(
        row,
        columns.map((c) => figure(c, row)),
      );
  } finally {
    agent.destroy();
    gateway.send({ type: 'close' } satisfies ToStagesGateway);
    simulator.disconnect();
    await Promise.all([
      new Promise((resolve) => gateway.once('exit', resolve)),
      new Promise((resolve) => simulator.once('exit', resolve)),
    ]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
