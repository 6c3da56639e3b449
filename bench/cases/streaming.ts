import { checkImagesSse } from '../check';
import { alternate, type BenchContext } from '../context';
import { timedSse } from '../http';
import { timeRow, type Row } from '../report';
import { directGeneration, throughGeneration } from '../requests';
import { TRANSPORT_LABEL, type Transport } from '../setup';
import { distribution } from '../stats';

const PARTIALS = 3;
const PER_EVENT_BUDGET_MS = 5;

/**
 * A 1024x1024 generation streamed with 3 partial images, per streaming transport (the native
 * channel does not stream: subscription streams take the bridge). Each event's arrival is timed;
 * the target is that no event arrives more than 5 ms later through the gateway than directly.
 * Direct bridge streams are Responses events: their `response.completed` is what the gateway waits
 * for before it can send `image_generation.completed`, so those two are compared.
 */
export async function streamingCases(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const transports: Transport[] = ['apiKey', 'bridge'];
  for (const transport of transports) {
    if (!ctx.wants(`streaming.${transport}`)) continue;
    const params = { size: '1024x1024', quality: 'medium', partialImages: PARTIALS } as const;
    const direct = directGeneration(ctx.sim, ctx.setup, transport, params);
    const through = throughGeneration(ctx.gateway.url, ctx.setup, transport, params);
    const { value, memory } = await ctx.withPeak(() =>
      alternate(ctx, {
        ...ctx.plan.streaming,
        direct: (keep) => timedSse(direct, keep),
        through: (keep) => timedSse(through, keep),
        check: async (t) => {
          if (t.partials !== PARTIALS) throw new Error(`stream had ${t.partials} partial images`);
          await checkImagesSse(t.body!, 1024, 1024);
        },
      }),
    );
    const label = `stream 1024x1024 + ${PARTIALS} partials, ${TRANSPORT_LABEL[transport]}`;
    const metrics = [
      { key: 'firstPartialMs', name: 'first partial' },
      { key: 'completedMs', name: 'completed' },
    ] as const;
    for (const metric of metrics) {
      const d = distribution(value.direct.map((s) => s[metric.key]));
      const t = distribution(value.through.map((s) => s[metric.key]));
      const added = t.p50 - d.p50;
      rows.push(
        timeRow({
          id: `streaming.${transport}.${metric.key}`,
          label: `${label}: ${metric.name}`,
          direct: d,
          through: t,
          target: `added <= ${PER_EVENT_BUDGET_MS} ms`,
          pass: added <= PER_EVENT_BUDGET_MS,
          details: {
            // The whole stream's extra time spread over its events, for comparison with the rule.
            addedPerEventMs: metric.key === 'completedMs' ? added / (PARTIALS + 1) : undefined,
            gatewayCpuMsPerCall: distribution(value.throughCpuMs).p50,
            settleMs: distribution(value.settleMs).p50,
            directEvents: value.direct[0]?.events,
            throughEvents: value.through[0]?.events,
            directBytes: value.direct[0]?.bytes,
            throughBytes: value.through[0]?.bytes,
            gatewayMemory: memory,
          },
        }),
      );
    }
    ctx.log(`${label}: done`);
  }
  return rows;
}
