import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMs, waitIdle } from './cpu';
import type { GatewayProcess } from './processes';
import { roundOrder, summariseRounds, type RoundSummary } from './rounds';

/**
 * A way through to the simulator: direct, through the do-nothing proxy, or through a gateway
 * child set one way or another. The cases that compare them (paths, concurrency) run each in
 * turn so that the machine's drift falls on all of them alike.
 */
export interface Variant<Name extends string, Sample = number> {
  name: Name;
  /**
   * One call (one request, or one burst of them); resolves to its sample: the ms it took, a rate,
   * or a record of several times (a stream's events).
   */
  call(): Promise<Sample>;
  /** A gateway child: its CPU per call is measured, and it settles after its block. */
  gateway?: GatewayProcess;
  /** How a gateway settles after its block (waitIdle unless given); resolves to the ms it took. */
  settle?(pid: number): Promise<number>;
  /** Runs just before and just after the way's block, outside its timed calls (counters). */
  beforeBlock?(): Promise<void>;
  afterBlock?(): Promise<void>;
}

export interface Blocks<Name extends string, Sample = number> {
  /** Each call's sample, in the order they ran. */
  samples: Record<Name, Sample[]>;
  /** The same samples grouped by round (one block per round). */
  byRound: Record<Name, Sample[][]>;
  /** Gateway CPU per call during its blocks, and after them until it settled (ms). */
  cpuInMs: Partial<Record<Name, number[]>>;
  cpuAfterMs: Partial<Record<Name, number[]>>;
  settleMs: Partial<Record<Name, number[]>>;
}

/** Warm-up calls per way before any is timed (issue 26: at least 10). */
export const WARMUP_CALLS = 10;
/**
 * The pause after every call, the same for every way, so no way gets its neighbour's after-work
 * (or a cooler CPU) more than another. Short: it is not a wait for idle (the no-wait cases keep
 * the gateway's after-work on the next request on purpose).
 */
export const PAUSE_MS = 20;

export interface BlockOptions {
  /** The pause after every call (PAUSE_MS unless given). */
  pauseMs?: number;
  /**
   * Let each gateway settle after every call, not only after its block: the one-at-a-time cases
   * (latency, streaming, edit) time a request that meets an idle gateway; the no-wait cases
   * (paths) leave the after-work on the next request on purpose.
   */
  settleEachCall?: boolean;
}

/**
 * Calls every way `calls` times, in turn, untimed: JIT, sockets and buffers warm for all alike.
 * The pause after each call is the one the timed calls get.
 */
export async function warmUp<Name extends string, Sample>(
  variants: ReadonlyArray<Variant<Name, Sample>>,
  calls = WARMUP_CALLS,
  pauseMs = PAUSE_MS,
): Promise<void> {
  for (let i = 0; i < calls; i += 1) {
    for (const v of roundOrder(variants, i)) {
      await v.call();
      if (pauseMs > 0) await sleep(pauseMs);
    }
  }
  await Promise.all(variants.map((v) => (v.gateway ? (v.settle ?? waitIdle)(v.gateway.pid) : 0)));
}

/** Each way's rounds summarised: the median of the rounds' medians and their spread. */
export function roundSummaries<Name extends string>(
  blocks: Blocks<Name>,
): Record<Name, RoundSummary> {
  return Object.fromEntries(
    Object.entries<number[][]>(blocks.byRound).map(([name, rounds]) => [
      name,
      summariseRounds(rounds),
    ]),
  ) as Record<Name, RoundSummary>;
}

/**
 * Runs every variant's block of `block` calls once per round, in an order that turns each round
 * and reverses every other one (roundOrder: ABBA over the rounds), so drift falls on all of them
 * alike. Every call is followed by the same short pause. A gateway settles after its own block,
 * so what it does after a reply is counted as its CPU and does not fall on the variant measured
 * next.
 */
export async function runBlocks<Name extends string, Sample = number>(
  variants: ReadonlyArray<Variant<Name, Sample>>,
  rounds: number,
  block: number,
  opts: BlockOptions = {},
): Promise<Blocks<Name, Sample>> {
  const pauseMs = opts.pauseMs ?? PAUSE_MS;
  const samples = Object.fromEntries(variants.map((v) => [v.name, [] as Sample[]])) as Record<
    Name,
    Sample[]
  >;
  const byRound = Object.fromEntries(variants.map((v) => [v.name, [] as Sample[][]])) as Record<
    Name,
    Sample[][]
  >;
  const result: Blocks<Name, Sample> = {
    samples,
    byRound,
    cpuInMs: {},
    cpuAfterMs: {},
    settleMs: {},
  };
  for (let round = 0; round < rounds; round += 1) {
    for (const v of roundOrder(variants, round)) {
      await v.beforeBlock?.();
      const before = v.gateway ? cpuMs(v.gateway.pid) : 0;
      const thisRound: Sample[] = [];
      byRound[v.name].push(thisRound);
      let settledInBlock = 0;
      for (let i = 0; i < block; i += 1) {
        const value = await v.call();
        samples[v.name].push(value);
        thisRound.push(value);
        if (pauseMs > 0) await sleep(pauseMs);
        // Waiting after each call (the gateway idle before the next): its after-work counts as
        // its CPU and never meets the next request.
        if (opts.settleEachCall && v.gateway && i < block - 1)
          settledInBlock += await (v.settle ?? waitIdle)(v.gateway.pid);
      }
      if (!v.gateway) {
        await v.afterBlock?.();
        continue;
      }
      const during = cpuMs(v.gateway.pid) - before;
      const settled = settledInBlock + (await (v.settle ?? waitIdle)(v.gateway.pid));
      const after = cpuMs(v.gateway.pid) - before - during;
      await v.afterBlock?.();
      (result.cpuInMs[v.name] ??= []).push(during / block);
      (result.cpuAfterMs[v.name] ??= []).push(after / block);
      (result.settleMs[v.name] ??= []).push(settled);
    }
  }
  return result;
}
