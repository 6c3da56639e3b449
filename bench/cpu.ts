import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** USER_HZ: /proc reports CPU time in these ticks; 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system, all threads) a process has used so far, in ms; 10 ms resolution. */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/**
 * Processes running V8's sampling profiler (`--profile`): the sampling costs them CPU even when
 * idle, 53 ms a second measured here (an idle Node process under `--cpu-prof`), which alone is
 * more than `waitQuiet`'s bound over its window; every wait then ran to its two-minute timeout.
 */
const profiled = new Set<number>();
/** The sampler's allowance: the 53 ms measured, with room for a busier machine's slower ticks. */
const PROFILER_MS_PER_SECOND = 80;

export function markProfiled(pid: number): void {
  profiled.add(pid);
}

/** The CPU a process may use in `windowMs` and still count as quiet: `maxCpuMs`, plus sampling. */
function quietBound(pid: number, windowMs: number, maxCpuMs: number): number {
  return maxCpuMs + (profiled.has(pid) ? (PROFILER_MS_PER_SECOND * windowMs) / 1000 : 0);
}

/**
 * Waits until a process is idle: at most 10 ms of CPU in a 100 ms window. The gateway keeps
 * working after a reply (usage records, the gallery's image files and thumbnails); without this,
 * that work would fall on whatever is measured next. Returns how long it took.
 */
export async function waitIdle(pid: number, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  let last = cpuMs(pid);
  for (;;) {
    await sleep(100);
    const now = cpuMs(pid);
    if (now - last <= quietBound(pid, 100, 10) || Date.now() - started > timeoutMs)
      return Date.now() - started - 100;
    last = now;
  }
}

/**
 * Waits until a process has used at most `maxCpuMs` of CPU over the last `windowMs`: deferred
 * work that starts only after a pause (the gallery's thumbnails wait for a second without
 * images) is then done and counted, where waitIdle's 100 ms window would end before it began.
 */
export async function waitQuiet(
  pid: number,
  windowMs: number,
  maxCpuMs: number,
  timeoutMs = 120_000,
): Promise<number> {
  const started = Date.now();
  const samples: Array<{ at: number; cpu: number }> = [{ at: started, cpu: cpuMs(pid) }];
  for (;;) {
    await sleep(100);
    const now = Date.now();
    samples.push({ at: now, cpu: cpuMs(pid) });
    while (samples.length > 1 && samples[1]!.at <= now - windowMs) samples.shift();
    const first = samples[0]!;
    const full = now - first.at >= windowMs;
    const bound = quietBound(pid, windowMs, maxCpuMs);
    if ((full && samples.at(-1)!.cpu - first.cpu <= bound) || now - started > timeoutMs)
      return now - started - windowMs;
  }
}

/**
 * CPU time the whole machine has spent in processes (user, nice, system) or taken by the
 * hypervisor (steal), all cores, in ms. Interrupt time is left out: loopback traffic is handled
 * there, and it is the benchmark's own.
 */
export function machineBusyMs(): number {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, , , , , steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  const ticks = user! + nice! + system! + (steal ?? 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/**
 * Watches how much CPU processes other than the benchmark's own used meanwhile: on a shared
 * machine another test run can take a core, and every figure then means less. The share is of the
 * whole machine (1 = all cores busy with foreign work). Our processes are sampled twice a second,
 * so a gateway child that is replaced mid-case still counts (up to its last sample).
 */
export function watchForeignLoad(pids: () => number[], cores: number) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = (initial: boolean) => {
    for (const pid of pids()) {
      const ms = safeCpuMs(pid);
      if (ms === null) continue;
      // A process first seen after the start began during the watch: all its CPU counts.
      if (!first.has(pid)) first.set(pid, initial ? ms : 0);
      last.set(pid, ms);
    }
  };
  const startedAt = Date.now();
  const machine0 = machineBusyMs();
  sample(true);
  const timer = setInterval(() => sample(false), 500);
  return {
    stop(): { foreignCpuMs: number; foreignShare: number } {
      clearInterval(timer);
      sample(false);
      const elapsed = Date.now() - startedAt;
      let ours = 0;
      for (const [pid, start] of first) ours += (last.get(pid) ?? start) - start;
      const foreignCpuMs = Math.max(0, machineBusyMs() - machine0 - ours);
      return { foreignCpuMs, foreignShare: elapsed > 0 ? foreignCpuMs / (elapsed * cores) : 0 };
    },
  };
}

/**
 * Every process below `root` (or each of several roots) in the process tree, from the parent
 * field of each /proc/<pid>/stat. The studio group's Playwright runner, `atelier serve` and
 * Chromium are the harness's descendants, and a PostgreSQL server's backends its main process's:
 * their CPU is the benchmark's own, not other load.
 */
export function descendants(root: number | readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited since the listing
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const found: number[] = [];
  // Several roots in one walk of /proc: it is read twice a second while cases run.
  const queue = (typeof root === 'number' ? [root] : root).flatMap((r) => children.get(r) ?? []);
  while (queue.length > 0) {
    const pid = queue.shift()!;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

function safeCpuMs(pid: number): number | null {
  try {
    return cpuMs(pid);
  } catch {
    return null;
  }
}
