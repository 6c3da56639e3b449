// `npm run bench:spool`: what the gallery's spool costs per 4K image, against another checkout's
// spool (`--baseline <dir>`) in the same run. Each round runs each way in a fresh process (their
// buffer pools and heaps never meet), the order turning every round; a way's figure for a round
// is its median image after the first two. Process CPU counts every thread (the event loop and
// the thread pool's writes); "in write()" is the event loop's time inside the spool's write calls.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { distribution } from '../stats';

const here = path.dirname(fileURLToPath(import.meta.url));
const WARM_IMAGES = 2;

interface Options {
  baseline: string | null;
  rounds: number;
  images: number;
  megabytes: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { baseline: null, rounds: 6, images: 12, megabytes: 25 };
  for (let i = 0; i < argv.length; i += 1) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--baseline':
        options.baseline = path.resolve(value ?? '');
        break;
      case '--rounds':
      case '--images':
      case '--megabytes': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${argv[i]} takes a whole number`);
        options[argv[i]!.slice(2) as 'rounds' | 'images' | 'megabytes'] = n;
        break;
      }
      default:
        throw new Error(
          `unknown option ${argv[i]}: --baseline <checkout>, --rounds N, --images N, --megabytes N`,
        );
    }
    i += 1;
  }
  if (options.images <= WARM_IMAGES) throw new Error(`--images must be over ${WARM_IMAGES}`);
  return options;
}

/** The child bundled against another checkout's spool (and what it imports). */
async function bundleBaseline(checkout: string): Promise<string> {
  const spool = path.join(checkout, 'src/gateway/gallery/spool.ts');
  if (!fs.existsSync(spool)) throw new Error(`${spool} does not exist`);
  const outfile = path.join(here, 'baseline-child.mjs');
  await build({
    entryPoints: [path.join(here, '../../bench/spool/child.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    logLevel: 'warning',
    plugins: [
      {
        name: 'baseline-spool',
        setup(b) {
          b.onResolve({ filter: /gallery\/spool$/ }, () => ({ path: spool }));
        },
      },
    ],
  });
  return outfile;
}

const median = (values: readonly number[]) => distribution(values).p50;

function runWay(script: string, dir: string, o: Options): { cpuMs: number; writeMs: number } {
  const run = spawnSync(process.execPath, [script, dir, String(o.images), String(o.megabytes)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${script} failed (exit ${run.status})`);
  const result = JSON.parse(run.stdout) as { cpuMs: number[]; writeMs: number[] };
  return {
    cpuMs: median(result.cpuMs.slice(WARM_IMAGES)),
    writeMs: median(result.writeMs.slice(WARM_IMAGES)),
  };
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const ways: Array<{ name: string; script: string }> = [
    { name: 'this tree', script: path.join(here, 'child.mjs') },
  ];
  if (o.baseline) ways.push({ name: 'baseline', script: await bundleBaseline(o.baseline) });
  // The gallery's own disk: os.tmpdir() is on it in these runs, and takes O_DIRECT.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-spool-bench-'));
  const rounds: Array<Record<string, { cpuMs: number; writeMs: number }>> = [];
  try {
    for (let r = 0; r < o.rounds; r += 1) {
      const order = r % 2 === 0 ? ways : [...ways].reverse();
      const round: Record<string, { cpuMs: number; writeMs: number }> = {};
      for (const way of order) round[way.name] = runWay(way.script, dir, o);
      rounds.push(round);
      process.stderr.write(`round ${r + 1}: ${JSON.stringify(round)}\n`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const spread = (values: number[], digits = 1) => {
    const { p50, min, max } = distribution(values);
    return `${p50.toFixed(digits)} (${min.toFixed(digits)} .. ${max.toFixed(digits)})`;
  };
  console.log(
    `\nSpool, ${o.megabytes} MB images in 64 KB pieces of base64, ${o.images} per way per round ` +
      `(first ${WARM_IMAGES} left out), ${o.rounds} rounds; median of rounds (min .. max):\n`,
  );
  console.log('| Way | process CPU per image, ms | in write() per image, ms |');
  console.log('| --- | ---: | ---: |');
  for (const way of ways) {
    const cpu = rounds.map((round) => round[way.name]!.cpuMs);
    const write = rounds.map((round) => round[way.name]!.writeMs);
    console.log(`| ${way.name} | ${spread(cpu)} | ${spread(write)} |`);
  }
  if (o.baseline) {
    const ratios = rounds.map((round) => round['this tree']!.cpuMs / round.baseline!.cpuMs);
    console.log(`\nthis tree / baseline, process CPU per image, by round: ${spread(ratios, 2)}x`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
