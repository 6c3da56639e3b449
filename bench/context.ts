import fs from 'node:fs';
import type { BaselineBuild } from './baselineBuild';
import path from 'node:path';
import { cpuMs, waitIdle } from './cpu';
import { retainedBy, type Retained } from './heapSnapshot';
import { formatMb } from './stats';
import type { PeakWatch } from './memory';
import { readMemory, watchPeak } from './memory';
import type { GatewayProcess, ProxyProcess, SimulatorProcess } from './processes';
import type { BenchSetup } from './setup';
import type { Plan } from './plan';

export interface PeakMemory {
  /** RSS after a full GC, before the case. */
  baselineBytes: number;
  peakBytes: number;
  polledPeakBytes: number;
  hwmReset: boolean;
  /** RSS after the case and another full GC: what the case left behind. */
  rssAfterGcBytes: number;
  /** The gateway's process.memoryUsage() after GC, before and after the case. */
  heapBefore: NodeJS.MemoryUsage;
  heapAfter: NodeJS.MemoryUsage;
  /** With --heap-snapshot: what retains the large buffers still alive after the case. */
  retained?: Retained[];
}

export interface BenchContext {
  sim: SimulatorProcess;
  setup: BenchSetup;
  gateway: GatewayProcess;
  /** Minimal reference proxies in front of the simulator (proxyChild.ts). */
  proxy: ProxyProcess;
  plan: Plan;
  /** The other checkout's gateway build (--baseline), or null. */
  baseline: BaselineBuild | null;
  log(line: string): void;
  /** Whether the case with this id was selected (--case). */
  wants(id: string): boolean;
  /** Waits for the gateway child to go idle; returns the ms it kept busy (settle time). */
  settle(): Promise<number>;
  /** The gateway child's CPU time so far (ms). */
  gatewayCpuMs(): number;
  /** Other children of the benchmark's own (a second gateway): not counted as foreign load. */
  ownPid(pid: number): void;
  forgetPid(pid: number): void;
  readonly ownPids: readonly number[];
  /**
   * Runs `fn` and measures the gateway child's peak RSS over it, after a full GC there. With
   * `fresh`, a new gateway child serves the case, so its peak is not what earlier cases left.
   * With `of`, that gateway child is measured instead (the installed way beside a baseline).
   */
  withPeak<T>(
    fn: () => Promise<T>,
    opts?: { fresh?: boolean; label?: string; of?: GatewayProcess | null },
  ): Promise<{ value: T; memory: PeakMemory }>;
}

export interface ContextParts {
  sim: SimulatorProcess;
  setup: BenchSetup;
  proxy: ProxyProcess;
  plan: Plan;
  baseline: BaselineBuild | null;
  /** Starts a gateway child on the bench's data folder. */
  startGateway: () => Promise<GatewayProcess>;
}

export async function createContext(parts: ContextParts): Promise<BenchContext> {
  let gateway = await parts.startGateway();
  const ownPids = new Set<number>();
  const ctx: BenchContext = {
    sim: parts.sim,
    setup: parts.setup,
    proxy: parts.proxy,
    plan: parts.plan,
    baseline: parts.baseline,
    get gateway() {
      return gateway;
    },
    log: (line) => process.stderr.write(`  ${line}\n`),
    wants: (id) => !parts.plan.caseFilter || parts.plan.caseFilter.some((f) => id.includes(f)),
    settle: () => waitIdle(gateway.pid),
    gatewayCpuMs: () => cpuMs(gateway.pid),
    ownPid: (pid) => void ownPids.add(pid),
    forgetPid: (pid) => void ownPids.delete(pid),
    get ownPids() {
      return [...ownPids];
    },
    async withPeak(fn, opts = {}) {
      if (opts.fresh && opts.of) throw new Error('withPeak: fresh restarts the own gateway only');
      if (opts.fresh) {
        await gateway.close();
        gateway = await parts.startGateway();
      }
      const watched = opts.of ?? gateway;
      const heapBefore = await watched.gc();
      const watch: PeakWatch = watchPeak(watched.pid);
      let peak: ReturnType<PeakWatch['stop']>;
      let value;
      try {
        value = await fn();
      } finally {
        peak = watch.stop();
      }
      await waitIdle(watched.pid);
      const heapAfter = await watched.gc();
      const rssAfterGcBytes = readMemory(watched.pid).rssBytes;
      let retained: Retained[] | undefined;
      if (parts.plan.heapSnapshotDir && opts.label) {
        fs.mkdirSync(parts.plan.heapSnapshotDir, { recursive: true });
        const file = await watched.heapSnapshot(
          path.resolve(parts.plan.heapSnapshotDir, `${opts.label}.heapsnapshot`),
        );
        const found = retainedBy(file);
        retained = found.retained.slice(0, 5);
        ctx.log(
          `heap snapshot ${file}: ${formatMb(found.totalBytes)} reachable; ` +
            `RSS after GC ${formatMb(rssAfterGcBytes)}` +
            (retained.length === 0 ? '; no buffer of 4 MB or more is reachable' : ''),
        );
        for (const r of retained) {
          ctx.log(`  ${formatMb(r.bytes)} in ${r.count}: ${r.path.join(' ')}`);
        }
      }
      return { value, memory: { ...peak, rssAfterGcBytes, heapBefore, heapAfter, retained } };
    },
  };
  return ctx;
}
