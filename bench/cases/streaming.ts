import { checkImagesSse } from '../check';
import { runBlocks, warmUp } from '../blocks';
import type { BenchContext } from '../context';
import { timedSse, type StreamTimed, type Target } from '../http';
import type { Row } from '../report';
import { directGeneration, throughGeneration, viaProxy } from '../requests';
import { TRANSPORT_LABEL, type Transport } from '../setup';
import { gatewayWays, inPairs, startOtherGateways, variantsOf, type GatewayWays } from '../ways';
import { mapBlocks, roundsRows } from './roundsRows';

const PARTIALS = 3;
const PER_EVENT_BUDGET_MS = 5;

/**
 * A 1024x1024 generation streamed with 3 partial images, per streaming transport (the native
 * channel does not stream: subscription streams take the bridge), the ways in interleaved rounds,
 * the gateway idle before each call. Each event's arrival is timed; the target is that no event
 * arrives more than 5 ms later through the gateway than directly. Direct bridge streams are
 * Responses events: their `response.completed` is what the gateway waits for before it can send
 * `image_generation.completed`, so those two are compared.
 */
export async function streamingCases(ctx: BenchContext): Promise<Row[]> {
  const transports = (['apiKey', 'bridge'] as Transport[]).filter((t) =>
    ctx.wants(`streaming.${t}`),
  );
  if (transports.length === 0) return [];
  const others = await startOtherGateways(ctx);
  const rows: Row[] = [];
  try {
    for (const transport of transports) {
      const params = { size: '1024x1024', quality: 'medium', partialImages: PARTIALS } as const;
      const direct = directGeneration(ctx.sim, ctx.setup, transport, params);
      const measure = async (ways: GatewayWays) => {
        const variants = variantsOf(ways, (way, served): (() => Promise<StreamTimed>) => {
          const target: Target = served
            ? throughGeneration(served.gateway.url, served.setup, transport, params)
            : way === 'floor'
              ? viaProxy(ctx.sim, ctx.proxy.url, direct)
              : direct;
          return () => timedSse(target);
        });
        for (const served of [ways.installed, ways.off, ways.baseline]) {
          if (!served) continue;
          const target = throughGeneration(served.gateway.url, served.setup, transport, params);
          const t = await timedSse(target, true);
          if (t.partials !== PARTIALS) throw new Error(`stream had ${t.partials} partial images`);
          await checkImagesSse(t.body!, 1024, 1024);
        }
        await warmUp(variants, ctx.plan.warmup);
        const plan = ctx.plan.streaming;
        return runBlocks(variants, plan.rounds, plan.block, { settleEachCall: true });
      };
      // --pairs: fresh pairs of gateways, one after another, and no memory figure.
      const { value: result, memory } =
        ctx.plan.pairs === null
          ? await ctx.withPeak(() => measure(gatewayWays(ctx, others)), {
              of: others.mine?.gateway,
            })
          : { value: await inPairs(ctx, measure), memory: null };
      const label = `stream 1024x1024 + ${PARTIALS} partials, ${TRANSPORT_LABEL[transport]}`;
      const metrics = [
        { key: 'firstPartialMs', name: 'first partial' },
        { key: 'completedMs', name: 'completed' },
      ] as const;
      for (const metric of metrics) {
        rows.push(
          ...roundsRows(ctx, {
            id: `streaming.${transport}.${metric.key}`,
            label: `${label}: ${metric.name}`,
            result: mapBlocks(result, (s) => s[metric.key]),
            budget: {
              text: `added <= ${PER_EVENT_BUDGET_MS} ms`,
              pass: (added) => added <= PER_EVENT_BUDGET_MS,
            },
            details: {
              ...ctx.plan.streaming,
              // No direct way under --pairs.
              directEvents: (result.samples.direct as StreamTimed[] | undefined)?.[0]?.events,
              throughEvents: result.samples.installed[0]?.events,
              gatewayMemory: memory,
            },
          }),
        );
      }
    }
  } finally {
    await others.close();
  }
  return rows;
}
