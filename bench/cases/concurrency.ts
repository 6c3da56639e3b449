import { performance } from 'node:perf_hooks';
import { checkImagesJson } from '../check';
import { alternate, type BenchContext } from '../context';
import { watchPeak } from '../memory';
import { timedPost, type Target } from '../http';
import { timeRow, type Row } from '../report';
import { directGeneration, throughGeneration } from '../requests';
import { distribution, formatMb, MB } from '../stats';

const TIME_RATIO_TARGET = 1.5;
const RSS_BASE = 300 * MB;
const RSS_PER_B64_BYTE = 1.5;

async function batch(target: Target, n: number): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: n }, () => timedPost(target)));
  return performance.now() - started;
}

/**
 * N 3840x2160 PNGs asked for at the same moment (API-key transport): the time until the last one
 * has arrived, and the gateway's peak RSS while it carries them. "Base64 bytes in flight" is N
 * times one image's base64 length: every request's image is in the gateway at the same time at
 * worst.
 */
export async function concurrencyCases(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const levels = ctx.plan.concurrency.levels.filter((l) => ctx.wants(`concurrency.${l.n}.`));
  if (levels.length === 0) return rows;
  const params = { size: '3840x2160', quality: 'medium', partialImages: 0 } as const;
  const direct = directGeneration(ctx.sim, ctx.setup, 'apiKey', params);
  // A function: each level gets a fresh gateway child, on a new port.
  const through = () => throughGeneration(ctx.gateway.url, ctx.setup, 'apiKey', params);
  // Warm-up and spot check with a single request each way.
  await timedPost(direct);
  const b64Bytes = await checkImagesJson((await timedPost(through(), true)).body!, 3840, 2160);

  for (const { n, iterations } of levels) {
    // The simulator's own peak too: it holds every answer it is making at once.
    const simWatch = watchPeak(ctx.sim.pid);
    const { value, memory } = await ctx.withPeak(
      async () => {
        await timedPost(through()); // the fresh child's first request
        return alternate(ctx, {
          warmup: 0,
          iterations,
          direct: () => batch(direct, n),
          through: () => batch(through(), n),
        });
      },
      { fresh: true, label: `concurrency.${n}` },
    );
    const simPeakBytes = simWatch.stop().peakBytes;
    const times = { direct: value.direct, through: value.through };
    const d = distribution(times.direct);
    const t = distribution(times.through);
    const ratio = t.p50 / d.p50;
    const timed = n === 16;
    rows.push(
      timeRow({
        id: `concurrency.${n}.time`,
        label: `${n} concurrent 3840x2160, total time`,
        direct: d,
        through: t,
        target: timed ? `<= ${TIME_RATIO_TARGET}x direct` : '-',
        pass: timed ? ratio <= TIME_RATIO_TARGET : null,
        details: {
          gatewayCpuMsPerRequest: distribution(value.throughCpuMs).p50 / n,
          settleMs: distribution(value.settleMs).p50,
          simulatorPeakBytes: simPeakBytes,
        },
      }),
    );
    const inFlight = n * b64Bytes;
    const limit = RSS_BASE + RSS_PER_B64_BYTE * inFlight;
    rows.push({
      id: `concurrency.${n}.rss`,
      label: `${n} concurrent 3840x2160, gateway peak RSS`,
      unit: 'bytes',
      direct: null,
      through: distribution([memory.peakBytes]),
      addedMs: null,
      ratio: null,
      target: `<= ${formatMb(limit)} (300 + 1.5 x ${formatMb(inFlight)})`,
      pass: memory.peakBytes <= limit,
      details: { b64BytesPerImage: b64Bytes, b64BytesInFlight: inFlight, gatewayMemory: memory },
    });
    ctx.log(
      `${n} concurrent 4K: direct ${d.p50.toFixed(0)} ms, through ${t.p50.toFixed(0)} ms, peak ${formatMb(memory.peakBytes)}`,
    );
    if (timed) rows.push(...(await referenceRow(ctx, direct, n, iterations)));
  }
  return rows;
}

/**
 * The floor for the time ratio: the same batch through a Node proxy that only streams bytes
 * through. Against an upstream that costs nothing, the proxy's own socket work (reading and
 * writing every byte once more, on the same 2 cores) is what any gateway adds at least.
 */
async function referenceRow(
  ctx: BenchContext,
  direct: Target,
  n: number,
  iterations: number,
): Promise<Row[]> {
  const id = `concurrency.reference.${n}`;
  if (!ctx.wants(id)) return [];
  const through = { ...direct, url: direct.url.replace(ctx.sim.url, `${ctx.proxy.url}/stream`) };
  await timedPost(through);
  const value = await alternate(ctx, {
    warmup: 0,
    iterations,
    direct: () => batch(direct, n),
    through: () => batch(through, n),
  });
  const d = distribution(value.direct);
  const t = distribution(value.through);
  ctx.log(
    `${n} concurrent 4K, streaming proxy: direct ${d.p50.toFixed(0)} ms, through ${t.p50.toFixed(0)} ms`,
  );
  return [
    timeRow({
      id,
      label: `${n} concurrent 3840x2160, reference: streaming Node proxy`,
      direct: d,
      through: t,
      details: { iterations },
    }),
  ];
}
