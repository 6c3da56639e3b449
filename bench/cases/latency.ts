import { checkImagesJson } from '../check';
import { runBlocks, warmUp } from '../blocks';
import type { BenchContext } from '../context';
import { timedPost, type Target } from '../http';
import type { Row } from '../report';
import { directGeneration, throughGeneration, viaProxy } from '../requests';
import { TRANSPORTS, TRANSPORT_LABEL } from '../setup';
import { gatewayWays, inPairs, startOtherGateways, variantsOf, type GatewayWays } from '../ways';
import { roundsRows } from './roundsRows';

const SIZES = [
  { size: '1024x1024', width: 1024, height: 1024, budgetMs: 5 },
  { size: '3840x2160', width: 3840, height: 2160, budgetMs: 40 },
] as const;

/**
 * One non-streaming PNG at a time, per transport and size, the gateway idle before each call:
 * the time to the last byte directly from the simulator, through the floor (the do-nothing
 * streaming proxy), through the gateway as installed and with the gallery off (and the baseline's
 * with --baseline), in interleaved rounds. Direct calls are the request the gateway's adapter
 * sends for that transport (for the bridge, an SSE answer that carries the image).
 */
export async function latencyCases(ctx: BenchContext): Promise<Row[]> {
  const wanted = SIZES.flatMap((spec) =>
    TRANSPORTS.filter((t) => ctx.wants(`latency.${t}.${spec.size}`)).map((t) => ({ spec, t })),
  );
  if (wanted.length === 0) return [];
  const others = await startOtherGateways(ctx);
  const rows: Row[] = [];
  try {
    for (const { spec, t: transport } of wanted) {
      const id = `latency.${transport}.${spec.size}`;
      const params = { size: spec.size, quality: 'medium', partialImages: 0 } as const;
      const direct = directGeneration(ctx.sim, ctx.setup, transport, params);
      const plan = spec.width > 1024 ? ctx.plan.latency.large : ctx.plan.latency.small;
      let b64Bytes = 0;
      const measure = async (ways: GatewayWays) => {
        const variants = variantsOf(ways, (way, served): (() => Promise<number>) => {
          const target: Target = served
            ? throughGeneration(served.gateway.url, served.setup, transport, params)
            : way === 'floor'
              ? viaProxy(ctx.sim, ctx.proxy.url, direct)
              : direct;
          return async () => (await timedPost(target)).ms;
        });
        // A spot check of what each gateway answers, then the warm-up calls.
        for (const served of [ways.installed, ways.off, ways.baseline]) {
          if (!served) continue;
          const target = throughGeneration(served.gateway.url, served.setup, transport, params);
          b64Bytes = await checkImagesJson(
            (await timedPost(target, true)).body!,
            spec.width,
            spec.height,
          );
        }
        await warmUp(variants, ctx.plan.warmup);
        return runBlocks(variants, plan.rounds, plan.block, { settleEachCall: true });
      };
      // --pairs: fresh pairs of gateways, one after another, and no memory figure.
      const { value: result, memory } =
        ctx.plan.pairs === null
          ? await ctx.withPeak(() => measure(gatewayWays(ctx, others)), {
              of: others.mine?.gateway,
            })
          : { value: await inPairs(ctx, measure), memory: null };
      const label = `${spec.size} PNG, ${TRANSPORT_LABEL[transport]}`;
      rows.push(
        ...roundsRows(ctx, {
          id,
          label,
          result,
          budget: { text: `added <= ${spec.budgetMs} ms`, pass: (added) => added <= spec.budgetMs },
          details: { ...plan, b64Bytes, gatewayMemory: memory },
        }),
      );
    }
  } finally {
    await others.close();
  }
  return rows;
}
