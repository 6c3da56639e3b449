import { startBaselineGateway } from './baseline';
import type { Variant } from './blocks';
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
 * installed way. The bench's own gateway has lived the whole run; set against one just started,
 * the same code read 1.24x in one run (`--pairs 40` of this tree against itself, the bridge's
 * 1024 reply) and nothing beyond noise when both were fresh: before/after compares like with like.
 * With --pairs there is no gallery-off way.
 */
export interface OtherGateways {
  off: ExtraGateway | null;
  baseline: ExtraGateway | null;
  mine: ExtraGateway | null;
  close(): Promise<void>;
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
  const started: ExtraGateway[] = [];
  const start = async (making: Promise<ExtraGateway>) => {
    const gateway = await making;
    started.push(gateway);
    return gateway;
  };
  const close = async () => {
    for (const gateway of started.reverse()) await gateway.close();
  };
  try {
    const off = ctx.plan.pairs === null ? await start(startExtraGateway(ctx, false)) : null;
    // Their galleries as the bench's own gateway's (as installed unless --keep-api-images off).
    const mine =
      ctx.baseline && !opts.ownIsFresh
        ? await start(startExtraGateway(ctx, ctx.plan.keepApiImages))
        : null;
    const baseline = ctx.baseline
      ? await start(startBaselineGateway(ctx, ctx.plan.keepApiImages))
      : null;
    return { off, baseline, mine, close };
  } catch (error) {
    await close();
    throw error;
  }
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
