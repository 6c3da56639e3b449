import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * `--baseline <dir>`: a gateway built from another checkout (the tree before a change) runs as one
 * more way in the same interleaved rounds, so "within 1.05x of before" is measured on the same
 * machine in the same minutes, not against figures from another day.
 *
 * Only that tree's gateway is used, never its harness: its `bench/gatewayChild.ts` (the gateway
 * child, configured over IPC as ours is) and its `bench/setup.ts` (`prepareDataDir`, which writes
 * the accounts and keys in that tree's own schema) are bundled with esbuild into its own
 * `out/bench-baseline/`, where their packages resolve from its `node_modules`.
 */
export interface BaselineBuild {
  /** The checkout, absolute. */
  dir: string;
  /** Its HEAD, `+dirty` when its tracked files differ: part of the run's identity. */
  commit: string;
  setupModule: string;
  gatewayChild: string;
}

/** The files a baseline tree must have: its gateway child and its data-folder setup. */
export const BASELINE_ENTRIES = ['bench/gatewayChild.ts', 'bench/setup.ts'] as const;

function commitOf(dir: string): string {
  try {
    const git = (args: string[]) =>
      execFileSync('git', ['-C', dir, ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    const head = git(['rev-parse', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no']);
    return dirty === '' ? head : `${head}+dirty`;
  } catch {
    return 'unknown+dirty';
  }
}

/** Bundles the baseline's gateway child and setup; throws when the tree lacks them. */
export async function buildBaseline(dirIn: string): Promise<BaselineBuild> {
  const dir = path.resolve(dirIn);
  const missing = BASELINE_ENTRIES.filter((f) => !fs.existsSync(path.join(dir, f)));
  if (missing.length > 0) {
    throw new Error(
      `--baseline ${dir}: not a checkout with a bench gateway child (missing ${missing.join(', ')})`,
    );
  }
  if (!fs.existsSync(path.join(dir, 'node_modules'))) {
    throw new Error(`--baseline ${dir}: no node_modules (run npm ci there first)`);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    version?: string;
  };
  const outdir = path.join(dir, 'out', 'bench-baseline');
  // The options of that tree's scripts/run-bundled.mjs: packages stay external (native modules
  // cannot be bundled) and resolve from the tree's own node_modules.
  await build({
    absWorkingDir: dir,
    entryPoints: { gatewayChild: 'bench/gatewayChild.ts', setup: 'bench/setup.ts' },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: true,
    packages: 'external',
    define: { __ATELIER_VERSION__: JSON.stringify(pkg.version ?? '0.0.0') },
    logLevel: 'warning',
  });
  return {
    dir,
    commit: commitOf(dir),
    setupModule: path.join(outdir, 'setup.mjs'),
    gatewayChild: path.join(outdir, 'gatewayChild.mjs'),
  };
}
