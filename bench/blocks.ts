import { cpuMs, waitIdle } from './cpu';
import type { GatewayProcess } from './processes';

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
  /** Gateway CPU per call during its blocks, and after them until it settled (ms). */
  cpuInMs: Partial<Record<Name, number[]>>;
  cpuAfterMs: Partial<Record<Name, number[]>>;
  settleMs: Partial<Record<Name, number[]>>;
}

/**
 * Runs every variant's block of `block` calls once per round, in an order that turns each round
 * and reverses every other one (ABBA over the rounds), so drift falls on all of them alike. A
 * gateway settles after its own block, so what it does after a reply is counted as its CPU and
 * does not fall on the variant measured next.
 */
export async function runBlocks<Name extends string>(
  variants: ReadonlyArray<Variant<Name>>,
  rounds: number,
  block: number,
): Promise<Blocks<Name>> {
  const samples = Object.fromEntries(variants.map((v) => [v.name, [] as number[]])) as Record<
    Name,
    number[]
  >;
  const result: Blocks<Name> = { samples, cpuInMs: {}, cpuAfterMs: {}, settleMs: {} };
  for (let round = 0; round < rounds; round += 1) {
    const turn = Math.floor(round / 2) % variants.length;
    const order = [...variants.slice(turn), ...variants.slice(0, turn)];
    if (round % 2 === 1) order.reverse();
    for (const v of order) {
      const before = v.gateway ? cpuMs(v.gateway.pid) : 0;
      for (let i = 0; i < block; i += 1) samples[v.name].push(await v.call());
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
