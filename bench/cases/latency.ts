import { checkImagesJson } from '../check';
import { alternate, type BenchContext } from '../context';
import { timedPost } from '../http';
import { timeRow, type Row } from '../report';
import { directGeneration, throughGeneration } from '../requests';
import { TRANSPORTS, TRANSPORT_LABEL } from '../setup';
import { distribution } from '../stats';

const SIZES = [
  { size: '1024x1024', width: 1024, height: 1024, budgetMs: 5 },
  { size: '3840x2160', width: 3840, height: 2160, budgetMs: 40 },
] as const;

/**
 * One non-streaming PNG at a time, per transport and size: the time to the last byte directly
 * from the simulator and through the gateway. Direct calls are the request the gateway's adapter
 * sends for that transport (for the bridge, an SSE answer that carries the image).
 */
export async function latencyCases(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const spec of SIZES) {
    for (const transport of TRANSPORTS) {
      const id = `latency.${transport}.${spec.size}`;
      if (!ctx.wants(id)) continue;
      const params = { size: spec.size, quality: 'medium', partialImages: 0 } as const;
      const direct = directGeneration(ctx.sim, ctx.setup, transport, params);
      const through = throughGeneration(ctx.gateway.url, ctx.setup, transport, params);
      const rounds = spec.width > 1024 ? ctx.plan.latency.large : ctx.plan.latency.small;
      let b64Bytes = 0;
      const { value, memory } = await ctx.withPeak(() =>
        alternate(ctx, {
          ...rounds,
          direct: (keep) => timedPost(direct, keep),
          through: (keep) => timedPost(through, keep),
          check: async (t) => {
            b64Bytes = await checkImagesJson(t.body!, spec.width, spec.height);
          },
        }),
      );
      const d = distribution(value.direct.map((s) => s.ms));
      const t = distribution(value.through.map((s) => s.ms));
      const added = t.p50 - d.p50;
      rows.push(
        timeRow({
          id,
          label: `${spec.size} PNG, ${TRANSPORT_LABEL[transport]}`,
          direct: d,
          through: t,
          target: `added <= ${spec.budgetMs} ms`,
          pass: added <= spec.budgetMs,
          details: {
            // Time to first byte: what the gateway holds back before it starts to answer.
            directFirstByteMs: distribution(value.direct.map((s) => s.firstByteMs)).p50,
            throughFirstByteMs: distribution(value.through.map((s) => s.firstByteMs)).p50,
            gatewayCpuMsPerCall: distribution(value.throughCpuMs).p50,
            settleMs: distribution(value.settleMs).p50,
            directBytes: value.direct[0]?.bytes,
            throughBytes: value.through[0]?.bytes,
            b64Bytes,
            gatewayMemory: memory,
          },
        }),
      );
      ctx.log(
        `${rows.at(-1)!.label}: direct ${d.p50.toFixed(1)} ms, through ${t.p50.toFixed(1)} ms`,
      );
    }
    rows.push(...(await referenceRows(ctx, spec)));
  }
  return rows;
}

/**
 * The floor under the targets: the same API-key request through a Node proxy that does nothing
 * but forward, once buffering the whole answer (as any reply with a Content-Length must) and once
 * streaming it through. What these add is the machine's cost of one more loopback hop.
 */
async function referenceRows(ctx: BenchContext, spec: (typeof SIZES)[number]): Promise<Row[]> {
  const rows: Row[] = [];
  const params = { size: spec.size, quality: 'medium', partialImages: 0 } as const;
  const direct = directGeneration(ctx.sim, ctx.setup, 'apiKey', params);
  for (const mode of ['buffer', 'stream'] as const) {
    const id = `reference.${mode}.${spec.size}`;
    if (!ctx.wants(id)) continue;
    const through = { ...direct, url: direct.url.replace(ctx.sim.url, `${ctx.proxy.url}/${mode}`) };
    const rounds = spec.width > 1024 ? ctx.plan.latency.large : ctx.plan.latency.small;
    const value = await alternate(ctx, {
      ...rounds,
      direct: (keep) => timedPost(direct, keep),
      through: (keep) => timedPost(through, keep),
    });
    const d = distribution(value.direct.map((s) => s.ms));
    const t = distribution(value.through.map((s) => s.ms));
    rows.push(
      timeRow({
        id,
        label: `${spec.size} PNG, reference: ${mode === 'buffer' ? 'buffering' : 'streaming'} Node proxy`,
        direct: d,
        through: t,
        details: {
          directFirstByteMs: distribution(value.direct.map((s) => s.firstByteMs)).p50,
          throughFirstByteMs: distribution(value.through.map((s) => s.firstByteMs)).p50,
        },
      }),
    );
  }
  return rows;
}
