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

/** The gateways beside the bench's own (installed) one: gallery off, and the baseline. */
export interface OtherGateways {
  off: ExtraGateway;
  baseline: ExtraGateway | null;
  close(): Promise<void>;
}

/** Starts the gallery-off gateway, and the baseline's when the run has one. */
export async function startOtherGateways(ctx: BenchContext): Promise<OtherGateways> {
  const off = await startExtraGateway(ctx, false);
  let baseline: ExtraGateway | null = null;
  try {
    // Its gallery as the bench's own gateway's (as installed unless --keep-api-images off).
    baseline = ctx.baseline ? await startBaselineGateway(ctx, ctx.plan.keepApiImages) : null;
  } catch (error) {
    await off.close();
    throw error;
  }
  return {
    off,
    baseline,
    async close() {
      await off.close();
      await baseline?.close();
    },
  };
}

/** The gateways of a case, by way (baseline only with --baseline). */
export type GatewayWays = Record<'installed' | 'off', Served> & { baseline: Served | null };

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
  return [
    { name: 'direct', call: call('direct', null) },
    { name: 'floor', call: call('floor', null) },
    gatewayWay('installed', ways.installed),
    gatewayWay('off', ways.off),
    ...(ways.baseline ? [gatewayWay('baseline', ways.baseline)] : []),
  ];
}

/** The main gateway (as installed) and the others, by way. */
export function gatewayWays(ctx: BenchContext, others: OtherGateways): GatewayWays {
  return {
    installed: { gateway: ctx.gateway, setup: ctx.setup },
    off: others.off,
    baseline: others.baseline,
  };
}
