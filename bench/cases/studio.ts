import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BenchContext } from '../context';
import type { Row } from '../report';
import { formatMs } from '../stats';

/**
 * The Playwright specs that record the studio's figures (mask painting and scrolling with 5,000
 * images; the first paint with 50,000; a board of 5,000 among 10,000, each file with its own
 * seeded server), and where they record them.
 */
const SPECS = [
  'test/e2e/bench.spec.ts',
  'test/e2e/benchGallery.spec.ts',
  'test/e2e/benchBoard.spec.ts',
];
const SPEC = SPECS.join(' ');
const METRICS = 'test-results/e2e/metrics.json';
/** Traces and error context of a failing test in the benchmark's run. */
const ARTIFACTS = 'test-results/e2e/bench-artifacts';
/** What the e2e suite's `atelier serve` serves: the studio and the bundled CLI. */
const BUILD = ['out/renderer/index.html', 'out/node/cli.mjs'];
/** The browser the e2e suite drives (test/e2e/support/browser.ts). */
const CHROMIUM = process.env.ATELIER_E2E_CHROMIUM ?? '/usr/bin/chromium';
/** One frame at 60 Hz. */
const FRAME_MS = 1000 / 60;
/**
 * requestAnimationFrame intervals wander a tenth of a millisecond around the vsync (16.8 ms is
 * seen in smooth runs); a dropped frame is 33.3 ms, so this allowance never hides one.
 */
const FRAME_JITTER_MS = 0.5;
/** Issue 16: the gallery's first paint with 50,000 images under 500 ms. */
const FIRST_PAINT_BUDGET_MS = 500;
/** The specs take about 30 s here, a first build about a minute; a hang must not stall a run. */
const RUN_TIMEOUT_MS = 10 * 60_000;

/** One entry of metrics.json: figures (rounded to 0.1) and what they mean. */
type Metric = Record<string, number | string>;

/** Why the studio cannot be measured on this machine, or null when it can. */
function unavailable(): string | null {
  if (!playwrightCli()) return '@playwright/test is not installed (npm install)';
  if (!fs.existsSync(CHROMIUM)) {
    return `Chromium is not at ${CHROMIUM} (apt-get install chromium, or set ATELIER_E2E_CHROMIUM)`;
  }
  return null;
}

/** Playwright's CLI, as `npx playwright` finds it; null when not installed (npx would fetch it). */
function playwrightCli(): string | null {
  try {
    return createRequire(import.meta.url).resolve('@playwright/test/cli');
  } catch {
    return null;
  }
}

/** Newest modification time of the code the studio build is made from (tests and docs aside). */
function newestSource(dir = 'src'): number {
  let newest = 0;
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!/\.(tsx?|css|html)$/.test(name) || /\.test\.tsx?$/.test(name)) continue;
    const stat = fs.statSync(path.join(dir, name));
    if (stat.isFile()) newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

/**
 * Missing: the e2e global setup builds it (electron-vite, then the CLI), as before `npm test`'s
 * e2e run. Stale: measured as it is (rebuilding from a tree someone is editing could fail or mix
 * versions), with a warning, since the figures are then of an older studio.
 */
function buildState(): 'missing' | 'stale' | 'ready' {
  if (!BUILD.every((file) => fs.existsSync(file))) return 'missing';
  const built = Math.min(...BUILD.map((file) => fs.statSync(file).mtimeMs));
  return newestSource() > built ? 'stale' : 'ready';
}

/**
 * `npx playwright test` on the spec alone, with playwright.config.ts (one worker, Debian's
 * Chromium). Two outputs moved: the config's JSON report is `npm test`'s e2e count, and its
 * artifacts folder (emptied at every start) holds the last e2e run's failure traces; a
 * three-test run must replace neither. Asynchronous, so the harness keeps sampling CPU meanwhile;
 * the output goes to stderr, beside the harness's progress (stdout holds the table).
 */
function runSpec(cli: string, skipBuild: boolean): Promise<number | null> {
  const env = { ...process.env };
  if (skipBuild) env.ATELIER_E2E_SKIP_BUILD = '1';
  else delete env.ATELIER_E2E_SKIP_BUILD;
  const child = spawn(
    process.execPath,
    [cli, 'test', ...SPECS, '--reporter=list', `--output=${ARTIFACTS}`],
    {
      env,
      stdio: ['ignore', 2, 2],
    },
  );
  const timer = setTimeout(() => child.kill('SIGTERM'), RUN_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.once('error', () => resolve(null));
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

function readMetrics(): Record<string, Metric> | null {
  try {
    return (JSON.parse(fs.readFileSync(METRICS, 'utf8')) as { metrics: Record<string, Metric> })
      .metrics;
  } catch {
    return null;
  }
}

const num = (m: Metric, key: string): number => Number(m[key] ?? Number.NaN);
const images = (m: Metric) => num(m, 'images').toLocaleString('en');

/** A row with no direct side: the studio is measured once, not against an upstream. */
function studioRow(
  id: string,
  label: string,
  shown: string,
  target: string,
  pass: boolean | null,
  m: Metric,
): Row {
  return {
    id,
    label,
    unit: 'ms',
    direct: null,
    through: null,
    addedMs: null,
    ratio: null,
    throughText: shown,
    target,
    pass,
    details: { ...m, spec: SPEC },
  };
}

/** The metrics the spec recorded, as rows; a test that failed before recording leaves its out. */
function studioRows(metrics: Record<string, Metric>): Row[] {
  const rows: Row[] = [];
  const mask = metrics['maskPainting.2048'];
  if (mask) {
    const p95 = num(mask, 'frameP95Ms');
    rows.push(
      studioRow(
        'studio.maskPainting.2048',
        'studio: mask painting on 2048x2048, frame time p50 / p95',
        `${formatMs(num(mask, 'frameP50Ms'))} / ${formatMs(p95)}`,
        `p95 within one 60 Hz frame (${FRAME_MS.toFixed(1)} ms)`,
        p95 <= FRAME_MS + FRAME_JITTER_MS,
        mask,
      ),
    );
  }
  // Issue 22: painting and selections on a 4K canvas, each within a 60 Hz frame at p95.
  const canvasCases = [
    ['maskPainting.4k', 'studio: mask painting on 3840x2160, frame time p50 / p95'],
    ['selection.4k', 'studio: rectangle and lasso selections on 3840x2160, frame time p50 / p95'],
  ] as const;
  for (const [name, label] of canvasCases) {
    const m = metrics[name];
    if (!m) continue;
    const p95 = num(m, 'frameP95Ms');
    rows.push(
      studioRow(
        `studio.${name}`,
        label,
        `${formatMs(num(m, 'frameP50Ms'))} / ${formatMs(p95)}`,
        `p95 within one 60 Hz frame (${FRAME_MS.toFixed(1)} ms)`,
        p95 <= FRAME_MS + FRAME_JITTER_MS,
        m,
      ),
    );
  }
  const paint = metrics['gallery.firstPaint'];
  if (paint) {
    const cold = num(paint, 'coldCacheMs');
    rows.push(
      studioRow(
        'studio.gallery.firstPaint',
        `studio: gallery first paint, ${images(paint)} images (first visit)`,
        formatMs(cold),
        `< ${FIRST_PAINT_BUDGET_MS} ms`,
        cold < FIRST_PAINT_BUDGET_MS,
        paint,
      ),
      // Thumbnails already in the browser's cache: what a person sees on coming back.
      studioRow(
        'studio.gallery.firstPaint.warm',
        `studio: gallery first paint, ${images(paint)} images (revisits, median)`,
        formatMs(num(paint, 'warmMedianMs')),
        '-',
        null,
        paint,
      ),
    );
  }
  // Issue 22: a board of 5,000 images paints its first screen within the gallery's budget.
  const board = metrics['board.firstPaint'];
  if (board) {
    const cold = num(board, 'coldCacheMs');
    rows.push(
      studioRow(
        'studio.board.firstPaint',
        `studio: board first paint, ${images(board)} images (first visit)`,
        formatMs(cold),
        `< ${FIRST_PAINT_BUDGET_MS} ms`,
        cold < FIRST_PAINT_BUDGET_MS,
        board,
      ),
    );
  }
  const load = metrics['gallery.pageLoad'];
  if (load) {
    const painted = num(load, 'paintedMs');
    rows.push(
      studioRow(
        'studio.gallery.pageLoad',
        `studio: /gallery page load to painted thumbnails, ${images(load)} images`,
        formatMs(painted),
        `< ${FIRST_PAINT_BUDGET_MS} ms`,
        painted < FIRST_PAINT_BUDGET_MS,
        load,
      ),
    );
  }
  const scroll = metrics['gallery.scroll'];
  if (scroll) {
    const p95 = num(scroll, 'frameP95Ms');
    rows.push(
      studioRow(
        'studio.gallery.scroll',
        `studio: gallery scroll to the last of ${images(scroll)}, frame time p50 / p95`,
        `${formatMs(num(scroll, 'frameP50Ms'))} / ${formatMs(p95)}`,
        `p95 within one 60 Hz frame (${FRAME_MS.toFixed(1)} ms)`,
        p95 <= FRAME_MS + FRAME_JITTER_MS,
        scroll,
      ),
    );
  }
  return rows;
}

function warn(line: string): void {
  process.stderr.write(`warning: ${line}\n`);
}

/**
 * The studio's side of issue 5 (item 4): mask painting frame times on a 2048x2048 image and the
 * gallery's first paint with 5,000 images, recorded by the Playwright spec in Chromium against
 * `atelier serve`. The spec is the one place these are measured, so the benchmark runs it and
 * reads its metrics.json rather than measuring again. Without Playwright or Chromium the group
 * warns and reports nothing: the rest of the benchmark does not need them.
 */
export async function studioCases(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.wants('studio.')) return [];
  const reason = unavailable();
  if (reason) {
    warn(`studio measurements skipped: ${reason}`);
    return [];
  }
  const build = buildState();
  if (build === 'missing') ctx.log('no studio build in out/: the e2e setup builds it first');
  if (build === 'stale') {
    warn(
      'the studio build in out/ is older than src/: these figures are of that build ' +
        '(delete out/renderer to have it rebuilt)',
    );
  }
  // A file left by an earlier run must not pass for this one's (the e2e setup removes it too).
  fs.rmSync(METRICS, { force: true });
  const code = await runSpec(playwrightCli()!, build !== 'missing');
  const metrics = readMetrics();
  if (code !== 0) {
    // Failed tests: whatever they recorded before failing is still reported.
    warn(`${SPEC} ${code === null ? 'did not run' : `exited with ${code}`} (output above)`);
  }
  if (!metrics) {
    warn(`no studio figures: ${METRICS} was not written`);
    return [];
  }
  const rows = studioRows(metrics).filter((row) => ctx.wants(row.id));
  for (const row of rows) row.details = { ...row.details, build, playwrightExit: code };
  return rows;
}
