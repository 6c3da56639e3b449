import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMs, waitIdle } from './cpu';
import type { GatewayProcess } from './processes';
import { roundOrder, summariseRounds, type RoundSummary } from './rounds';

/**
 * A way through to the simulator: direct, through the do-nothing proxy, or through a gateway
 * child set one way or another. The cases that compare them (paths, concurrency) run each in
 * turn so that the machine's drift falls on all of them alike.
 */
export interface Variant<Name extends string> {
  name: Name;
  /** One call (one request, or one burst of them); resolves to the ms it took. */
  call(): Promise<number>;
  /** A gateway child: its CPU per call is measured, and it settles after its block. */
  gateway?: GatewayProcess;
  /** How a gateway settles after its block (waitIdle unless given); resolves to the ms it took. */
  settle?(pid: number): Promise<number>;
}

export interface Blocks<Name extends string> {
  /** ms per call, in the order they ran. */
  samples: Record<Name, number[]>;
  /** The same samples grouped by round (one block per round). */
  byRound: Record<Name, number[][]>;
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

/**
 * Calls every way `calls` times, in turn, untimed: JIT, sockets and buffers warm for all alike.
 * The pause after each call is the one the timed calls get.
 */
export async function warmUp<Name extends string>(
  variants: ReadonlyArray<Variant<Name>>,
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
export async function runBlocks<Name extends string>(
  variants: ReadonlyArray<Variant<Name>>,
  rounds: number,
  block: number,
  pauseMs = PAUSE_MS,
): Promise<Blocks<Name>> {
  const samples = Object.fromEntries(variants.map((v) => [v.name, [] as number[]])) as Record<
    Name,
    number[]
  >;
  const byRound = Object.fromEntries(variants.map((v) => [v.name, [] as number[][]])) as Record<
    Name,
    number[][]
  >;
  const result: Blocks<Name> = { samples, byRound, cpuInMs: {}, cpuAfterMs: {}, settleMs: {} };
  for (let round = 0; round < rounds; round += 1) {
    for (const v of roundOrder(variants, round)) {
      const before = v.gateway ? cpuMs(v.gateway.pid) : 0;
      const thisRound: number[] = [];
      byRound[v.name].push(thisRound);
      for (let i = 0; i < block; i += 1) {
        const value = await v.call();
        samples[v.name].push(value);
        thisRound.push(value);
        if (pauseMs > 0) await sleep(pauseMs);
      }
      if (!v.gateway) continue;
      const during = cpuMs(v.gateway.pid) - before;
      const settled = await (v.settle ?? waitIdle)(v.gateway.pid);
      const after = cpuMs(v.gateway.pid) - before - during;
      (result.cpuInMs[v.name] ??= []).push(during / block);
      (result.cpuAfterMs[v.name] ??= []).push(after / block);
      (result.settleMs[v.name] ??= []).push(settled);
    }
  }
  return result;
}
