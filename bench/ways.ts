import { startBaselineGateway } from './baseline';
import type { Blocks, Variant } from './blocks';
import type { BenchContext } from './context';
import { startExtraGateway, type ExtraGateway } from './gateways';
import type { GatewayProcess } from './processes';
import type { BenchSetup } from './setup';

/**
 * The ways a case compares, each in every round (issue 26): the simulator itself, the floor (the
 * same request through the do-nothing streaming proxy), the gateway as installed (the gallery
 * keeping every image), the gateway with the gallery off, and with `--baseline` the other
 * checkout's gateway as installed.
 */
export type Way = 'direct' | 'floor' | 'installed' | 'off' | 'baseline';

/** A gateway child a way calls, with the data folder (its keys) it was set up with. */
export interface Served {
  gateway: GatewayProcess;
  setup: BenchSetup;
}

/**
 * The gateways beside the bench's own (installed) one: gallery off, and with --baseline the
 * baseline's with a fresh gateway of this tree started beside it (`mine`), which is then the
 * installed way. The bench's own gateway has lived the whole run: set against the same code
 * freshly started it read 1.24x in one run (the bridge's 1024 reply, 40 rounds). Under --pairs
 * the group starts none of these: each case runs on pairs of its own (inPairs).
 */
export interface OtherGateways {
  off: ExtraGateway | null;
  baseline: ExtraGateway | null;
  mine: ExtraGateway | null;
  close(): Promise<void>;
}

/** Starts gateways one after another; closes those started, last first. */
function starter() {
  const started: ExtraGateway[] = [];
  return {
    async start(making: Promise<ExtraGateway>): Promise<ExtraGateway> {
      const gateway = await making;
      started.push(gateway);
      return gateway;
    },
    async close(): Promise<void> {
      for (const gateway of started.splice(0).reverse()) await gateway.close();
    },
  };
}

/**
 * Starts the gallery-off gateway, and the baseline's beside a fresh one of ours when asked.
 * `ownIsFresh`: the case restarts the bench's own gateway for itself (withPeak's `fresh`), which
 * is then as new as the baseline's and stays the installed way.
 */
export async function startOtherGateways(
  ctx: BenchContext,
  opts: { ownIsFresh?: boolean } = {},
): Promise<OtherGateways> {
  const none = { off: null, baseline: null, mine: null, close: async () => {} };
  if (ctx.plan.pairs !== null) return none;
  const gateways = starter();
  try {
    const off = await gateways.start(startExtraGateway(ctx, false));
    // Their galleries as the bench's own gateway's (as installed unless --keep-api-images off).
    const mine =
      ctx.baseline && !opts.ownIsFresh
        ? await gateways.start(startExtraGateway(ctx, ctx.plan.keepApiImages))
        : null;
    const baseline = ctx.baseline
      ? await gateways.start(startBaselineGateway(ctx, ctx.plan.keepApiImages))
      : null;
    return { off, baseline, mine, close: () => gateways.close() };
  } catch (error) {
    await gateways.close();
    throw error;
  }
}

/** The samples of several runs of the same ways, joined in the order they ran. */
export function joinBlocks<Name extends string, Sample>(
  parts: ReadonlyArray<Blocks<Name, Sample>>,
): Blocks<Name, Sample> {
  const joined: Blocks<Name, Sample> = {
    samples: {} as Record<Name, Sample[]>,
    byRound: {} as Record<Name, Sample[][]>,
    cpuInMs: {},
    cpuAfterMs: {},
    settleMs: {},
  };
  const append = <T>(into: Partial<Record<Name, T[]>>, from: Partial<Record<Name, T[]>>) => {
    for (const [name, list] of Object.entries(from) as Array<[Name, T[]]>)
      (into[name] ??= []).push(...list);
  };
  for (const part of parts) {
    append(joined.samples, part.samples);
    append(joined.byRound, part.byRound);
    append(joined.cpuInMs, part.cpuInMs);
    append(joined.cpuAfterMs, part.cpuAfterMs);
    append(joined.settleMs, part.settleMs);
  }
  return joined;
}

/**
 * --pairs: a case measured on `ctx.plan.pairs` pairs of gateway children, one after another:
 * each pair a fresh gateway of this tree and a fresh baseline's, started in turn (which one
 * first alternates from pair to pair), measured (`measure`: its warm-up and rounds), and closed.
 * One child differs from another of the same code by more than one call differs from the next
 * (docs/benchmarks.md, "Before and after"), so the pair, not the round, is what is repeated.
 */
export async function inPairs<Sample>(
  ctx: BenchContext,
  measure: (ways: GatewayWays) => Promise<Blocks<Way, Sample>>,
): Promise<Blocks<Way, Sample>> {
  if (!ctx.baseline || ctx.plan.pairs === null) throw new Error('inPairs needs --pairs');
  const parts: Array<Blocks<Way, Sample>> = [];
  for (let pair = 0; pair < ctx.plan.pairs; pair += 1) {
    const gateways = starter();
    try {
      const startMine = () => gateways.start(startExtraGateway(ctx, ctx.plan.keepApiImages));
      const startBaseline = () => gateways.start(startBaselineGateway(ctx, ctx.plan.keepApiImages));
      let mine: ExtraGateway;
      let baseline: ExtraGateway;
      if (pair % 2 === 0) {
        mine = await startMine();
        baseline = await startBaseline();
      } else {
        baseline = await startBaseline();
        mine = await startMine();
      }
      parts.push(await measure({ installed: mine, off: null, baseline }));
    } finally {
      await gateways.close();
    }
  }
  return joinBlocks(parts);
}

/** The gateways of a case, by way (baseline only with --baseline). */
export type GatewayWays = { installed: Served; off: Served | null; baseline: Served | null };

/**
 * The variants of one case: `call(way, served)` makes a way's call (served is null for direct and
 * floor). Gateways settle by waitIdle (blocks.ts).
 */
export function variantsOf<Sample>(
  ways: GatewayWays,
  call: (way: Way, served: Served | null) => () => Promise<Sample>,
): Array<Variant<Way, Sample>> {
  const gatewayWay = (way: 'installed' | 'off' | 'baseline', served: Served) => ({
    name: way,
    call: call(way, served),
    gateway: served.gateway,
  });
  // --pairs: the two gateways alone (the baseline is always there then).
  if (ways.off === null && ways.baseline)
    return [gatewayWay('installed', ways.installed), gatewayWay('baseline', ways.baseline)];
  return [
    { name: 'direct', call: call('direct', null) },
    { name: 'floor', call: call('floor', null) },
    gatewayWay('installed', ways.installed),
    ...(ways.off ? [gatewayWay('off', ways.off)] : []),
    ...(ways.baseline ? [gatewayWay('baseline', ways.baseline)] : []),
  ];
}

/** The installed gateway (ours beside the baseline, else the bench's own) and the others. */
export function gatewayWays(ctx: BenchContext, others: OtherGateways): GatewayWays {
  return {
    installed: others.mine ?? { gateway: ctx.gateway, setup: ctx.setup },
    off: others.off,
    baseline: others.baseline,
  };
}
