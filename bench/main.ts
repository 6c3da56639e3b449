// The gateway benchmark (issue 5): the simulator and the gateway in child processes, this process
// the client. Prints a table, writes bench-results/<timestamp>.json and bench-results/latest.json.
// A benchmark prints numbers: targets are reported as pass/FAIL, and the exit code is 0 either way.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agree, findPrior, verdictText, type Agreement, type RunIdentity } from './agreement';
import { buildBaseline, type BaselineBuild } from './baselineBuild';
import { baselineSummary } from './versusBaseline';
import { editCases } from './cases/edit';
import { concurrencyCases } from './cases/concurrency';
import { latencyCases } from './cases/latency';
import { pathsCases } from './cases/paths';
import { postgresCases } from './cases/postgres';
import { streamingCases } from './cases/streaming';
import { studioCases } from './cases/studio';
import { throughputCases } from './cases/throughput';
import { createContext, type BenchContext } from './context';
import { fileCreateCosts } from './dataRoot';
import { descendants, watchForeignLoad } from './cpu';
import { agent } from './http';
import { parsePlan, USAGE, type CaseGroup } from './plan';
import { startGatewayProcess, startProxyProcess, startSimulatorProcess } from './processes';
import { profilesSince, summariseProfile, type SelfTime } from './profile';
import { tableLines, writeReport, type Row } from './report';
import { prepareDataDir } from './setup';

const RESULTS_DIR = 'bench-results';

const GROUPS: Record<CaseGroup, (ctx: BenchContext) => Promise<Row[]>> = {
  latency: latencyCases,
  paths: pathsCases,
  streaming: streamingCases,
  concurrency: concurrencyCases,
  throughput: throughputCases,
  edit: editCases,
  postgres: postgresCases,
  studio: studioCases,
};

function machine(): Record<string, unknown> {
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryBytes: os.totalmem(),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/** The tree measured: HEAD, marked dirty when tracked files differ from it (then no verdict). */
function commitOf(): string {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty === '' ? head : `${head}+dirty`;
  } catch {
    return 'unknown+dirty';
  }
}

function identityOf(
  info: Record<string, unknown>,
  mode: RunIdentity['mode'],
  baseline: BaselineBuild | null,
  pairs: number | null,
): RunIdentity {
  const machineKey = [os.hostname(), info.cpuModel, info.cpus, info.memoryBytes].join(' / ');
  return {
    commit: commitOf(),
    machine: machineKey,
    mode,
    ...(baseline && { baseline: baseline.commit }),
    ...(pairs !== null && { pairs }),
  };
}

function printProfile(file: string): void {
  const summary = summariseProfile(file);
  const list = (title: string, entries: SelfTime[]) => {
    process.stdout.write(`\n${title}\n`);
    for (const e of entries) {
      const ms = e.selfMs.toFixed(0).padStart(7);
      const share = (e.share * 100).toFixed(1).padStart(5);
      process.stdout.write(`${ms} ms ${share} %  ${e.name}  ${e.location}\n`);
    }
  };
  process.stdout.write(
    `\nGateway CPU profile: ${file}\n${(summary.totalMs / 1000).toFixed(1)} s sampled, ` +
      `${(summary.busyMs / 1000).toFixed(1)} s busy (shares below are of busy time)\n`,
  );
  list('Top self time:', summary.self);
  list('Busy time by the innermost gateway (src/) function on the stack:', summary.bySource);
}

async function main(): Promise<number> {
  const plan = parsePlan(process.argv.slice(2));
  if (plan === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (process.platform !== 'linux') {
    throw new Error('the benchmark reads peak RSS from /proc/<pid>/status: it runs on Linux only');
  }
  const startedAt = new Date();
  const info = machine();
  // Built first: a baseline tree that cannot be built stops the run before anything is measured.
  const baseline = plan.baseline ? await buildBaseline(plan.baseline) : null;
  // Taken at the start: the tree measured is the one the run began with, whatever lands meanwhile.
  const identity = identityOf(info, plan.mode, baseline, plan.pairs);
  const loadAtStart = os.loadavg()[0]!;
  if (loadAtStart > 0.5) {
    process.stderr.write(
      `warning: load average ${loadAtStart.toFixed(1)} before the start; other work will show in the figures\n`,
    );
  }
  process.stderr.write(
    `Atelier gateway benchmark (${plan.mode}): ${info.cpus} x ${info.cpuModel}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}` +
      (baseline ? `; baseline ${baseline.dir} at ${baseline.commit}` : '') +
      '\n',
  );
  // What creating a file costs here: the gallery makes one per kept image (dataRoot.ts).
  const fileCreate = fileCreateCosts();
  process.stderr.write(
    `file creation: ${fileCreate.benchDataMs.toFixed(3)} ms in the gateways' data folders, ` +
      `${fileCreate.tmpMs.toFixed(3)} ms in ${os.tmpdir()}\n`,
  );
  if (plan.cpuProfileDir) fs.mkdirSync(plan.cpuProfileDir, { recursive: true });

  const sim = await startSimulatorProcess();
  const proxy = await startProxyProcess(sim.url, sim.bridgeUrl);
  const setup = await prepareDataDir(sim, plan);
  const ctx = await createContext({
    sim,
    setup,
    proxy,
    plan,
    baseline,
    startGateway: () =>
      startGatewayProcess(setup.gatewayConfig, {
        cpuProfileDir: plan.cpuProfileDir ?? undefined,
        flags: plan.gatewayFlags,
      }),
  });
  const rows: Row[] = [];
  const loads: Partial<Record<CaseGroup, number>> = {};
  try {
    for (const group of plan.groups) {
      const started = Date.now();
      process.stderr.write(`${group}...\n`);
      // The studio group's Playwright, `atelier serve` and Chromium are our descendants. Only
      // there: walking /proc twice a second would cost the client CPU in the gateway's groups.
      const pids = () => [
        process.pid,
        sim.pid,
        proxy.pid,
        ctx.gateway.pid,
        ...ctx.ownPids,
        ...(group === 'studio' ? descendants(process.pid) : []),
        // The PostgreSQL server's backends are children of its main process (an own pid).
        ...(group === 'postgres' ? descendants(ctx.ownPids) : []),
      ];
      const foreign = watchForeignLoad(pids, os.availableParallelism());
      const groupRows = await GROUPS[group](ctx);
      const load = foreign.stop();
      for (const row of groupRows) row.details = { ...row.details, foreignLoad: load.foreignShare };
      rows.push(...groupRows);
      loads[group] = load.foreignShare;
      process.stderr.write(
        `${group}: ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
          `other processes used ${(load.foreignShare * 100).toFixed(0)} % of the machine\n`,
      );
    }
  } finally {
    await ctx.gateway.close();
    await proxy.close();
    await sim.close();
    await agent.close();
    setup.remove();
  }

  const durationMs = Date.now() - startedAt.getTime();
  // A verdict needs two full runs of the same tree on the same machine that reach it.
  const stamp = `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`;
  const prior = findPrior(RESULTS_DIR, identity, stamp);
  const agreements = rows.map((r): Agreement =>
    r.undecided !== undefined
      ? { kind: 'undecided', reason: r.undecided }
      : agree(r.id, r.pass, prior, identity),
  );
  rows.forEach((r, i) => (r.verdict = verdictText(agreements[i]!, r.pass)));
  const file = writeReport({
    startedAt: startedAt.toISOString(),
    durationMs,
    mode: plan.mode,
    identity,
    machine: { ...info, loadAverageAtStart: loadAtStart, fileCreateMs: fileCreate },
    foreignLoad: loads,
    settings: {
      groups: plan.groups,
      caseFilter: plan.caseFilter,
      keepApiImages: plan.keepApiImages,
      gatewayFlags: plan.gatewayFlags,
      latency: plan.latency,
      paths: plan.paths,
      streaming: plan.streaming,
      pairs: plan.pairs,
      concurrency: plan.concurrency,
      throughput: plan.throughput,
      edit: plan.edit,
      postgres: plan.postgres,
      warmup: plan.warmup,
      baseline: baseline && { dir: baseline.dir, commit: baseline.commit },
    },
    rows,
  });
  process.stdout.write(`\n${tableLines(rows).join('\n')}\n\n`);
  for (const [i, r] of rows.entries()) {
    const a = agreements[i]!;
    if (a.kind === 'agrees') process.stdout.write(`${r.id}: agrees with ${a.with}\n`);
    else if (a.kind === 'differs') process.stdout.write(`${r.id}: differs: no verdict\n`);
  }
  const decided = agreements.filter((a) => a.kind === 'agrees');
  const failed = decided.filter((a) => a.kind === 'agrees' && !a.pass).length;
  const judged = agreements.filter((a) => a.kind !== 'info').length;
  process.stdout.write(
    `${judged} targets: ${decided.length - failed} met and ${failed} missed by two agreeing runs, ` +
      `${judged - decided.length} without a verdict` +
      (prior
        ? ` (with ${path.basename(prior.file)})`
        : ' (no earlier full run of this tree here)') +
      `; ${(durationMs / 1000).toFixed(0)} s; figures in ${file}\n`,
  );

  if (baseline) process.stdout.write(`${baselineSummary(rows, baseline.commit)}\n`);
  const busy = Object.entries(loads).filter(([, share]) => share > 0.05);
  if (busy.length > 0) {
    process.stdout.write(
      `warning: other processes used ${busy.map(([g, share]) => `${((share ?? 0) * 100).toFixed(0)} % of the machine during ${g}`).join(', ')}: ` +
        'those figures are not clean; run again on a quiet machine\n',
    );
  }
  if (plan.cpuProfileDir) {
    for (const profile of profilesSince(plan.cpuProfileDir, startedAt.getTime()))
      printProfile(profile);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
