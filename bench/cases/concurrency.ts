import { performance } from 'node:perf_hooks';
import { checkImagesJson } from '../check';
import { alternate, type BenchContext } from '../context';
import { startExtraGateway } from '../gateways';
import { watchPeak } from '../memory';
import { timedPost, type Target } from '../http';
import { timeRow, type Row } from '../report';
import { directGeneration, throughGeneration, viaProxy } from '../requests';
import { TRANSPORT_LABEL } from '../setup';
import { distribution, formatMb, MB } from '../stats';

/** Issue 16: within 1.25x of the floor's time (the same burst through the do-nothing proxy). */
const FLOOR_TIME_RATIO = 1.25;
/** Issue 16: peak RSS at most 250 MB + 0.5 x the base64 in flight. */
const RSS_BASE = 250 * MB;
const RSS_PER_B64_BYTE = 0.5;
const TRANSPORTS = ['apiKey', 'bridge'] as const;

async function batch(target: Target, n: number): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: n }, () => timedPost(target)));
  return performance.now() - started;
}

/**
 * N 3840x2160 PNGs asked for at the same moment, on the API-key path and through the Responses
 * bridge: the time until the last one has arrived, against the same burst through the
 * do-nothing streaming proxy (for the bridge, carrying the bridge's bytes), and the gateway's
 * peak RSS while it carries them. "Base64 bytes in flight" is N times one image's base64 length:
 * every request's image is in the gateway at the same time at worst.
 */
export async function concurrencyCases(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const transport of TRANSPORTS) {
    // 64 at once only on the API-key path: a round takes over a minute here.
    const levels = ctx.plan.concurrency.levels.filter(
      (l) =>
        (transport === 'apiKey' || l.n === 16) && ctx.wants(`concurrency.${transport}.${l.n}.`),
    );
    if (levels.length === 0) continue;
    const params = { size: '3840x2160', quality: 'medium', partialImages: 0 } as const;
    const direct = directGeneration(ctx.sim, ctx.setup, transport, params);
    // A function: each level gets a fresh gateway child, on a new port.
    const through = () => throughGeneration(ctx.gateway.url, ctx.setup, transport, params);
    // Warm-up and spot check with a single request each way.
    await timedPost(direct);
    const b64Bytes = await checkImagesJson((await timedPost(through(), true)).body!, 3840, 2160);

    for (const { n, iterations } of levels) {
      const timed = n === 16;
      const floor = timed ? await referenceRow(ctx, transport, direct, n, iterations) : null;
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
        { fresh: true, label: `concurrency.${transport}.${n}` },
      );
      const simPeakBytes = simWatch.stop().peakBytes;
      const d = distribution(value.direct);
      const t = distribution(value.through);
      const floorP50 = floor?.through?.p50 ?? null;
      const label = `${n} concurrent 3840x2160, ${TRANSPORT_LABEL[transport]}`;
      rows.push(
        timeRow({
          id: `concurrency.${transport}.${n}.time`,
          label: `${label}, total time`,
          direct: d,
          through: t,
          target: floorP50 !== null ? `<= ${FLOOR_TIME_RATIO}x the floor's time` : '-',
          pass: floorP50 !== null ? t.p50 <= FLOOR_TIME_RATIO * floorP50 : null,
          details: {
            floorMs: floorP50,
            ratioToFloor: floorP50 !== null ? t.p50 / floorP50 : null,
            gatewayCpuMsPerRequest: distribution(value.throughCpuMs).p50 / n,
            settleMs: distribution(value.settleMs).p50,
            simulatorPeakBytes: simPeakBytes,
          },
        }),
      );
      if (floor) rows.push(floor);
      if (timed) rows.push(await galleryOffRow(ctx, transport, direct, n, iterations, floorP50));
      const inFlight = n * b64Bytes;
      const limit = RSS_BASE + RSS_PER_B64_BYTE * inFlight;
      rows.push({
        id: `concurrency.${transport}.${n}.rss`,
        label: `${label}, gateway peak RSS`,
        unit: 'bytes',
        direct: null,
        through: distribution([memory.peakBytes]),
        addedMs: null,
        ratio: null,
        target: `<= ${formatMb(limit)} (250 + 0.5 x ${formatMb(inFlight)})`,
        pass: memory.peakBytes <= limit,
        details: { b64BytesPerImage: b64Bytes, b64BytesInFlight: inFlight, gatewayMemory: memory },
      });
      ctx.log(
        `${label}: direct ${d.p50.toFixed(0)} ms, through ${t.p50.toFixed(0)} ms` +
          (floorP50 !== null ? `, floor ${floorP50.toFixed(0)} ms` : '') +
          `, peak ${formatMb(memory.peakBytes)}`,
      );
    }
  }
  return rows;
}

/**
 * One burst of `n` against the same burst direct, alternated: a row of its own for what
 * `through` adds (the floor, or a gateway child set another way).
 */
async function burstRow(
  ctx: BenchContext,
  burst: { direct: Target; through: Target; n: number; iterations: number },
  row: { id: string; label: string; floorP50?: number | null },
): Promise<Row> {
  const { direct, through, n, iterations } = burst;
  await timedPost(through);
  const value = await alternate(ctx, {
    warmup: 0,
    iterations,
    direct: () => batch(direct, n),
    through: () => batch(through, n),
  });
  const d = distribution(value.direct);
  const t = distribution(value.through);
  ctx.log(`${row.label}: direct ${d.p50.toFixed(0)} ms, through ${t.p50.toFixed(0)} ms`);
  const floorP50 = row.floorP50 ?? null;
  return timeRow({
    id: row.id,
    label: row.label,
    direct: d,
    through: t,
    details: {
      iterations,
      ...(row.floorP50 === undefined
        ? {}
        : { floorMs: floorP50, ratioToFloor: floorP50 !== null ? t.p50 / floorP50 : null }),
    },
  });
}

/**
 * The floor for the time: the same batch through a Node proxy that only streams bytes through
 * (the bridge's SSE bytes, for the bridge). Against an upstream that costs nothing, the proxy's
 * own socket work (reading and writing every byte once more, on the same 2 cores) is what any
 * gateway adds at least.
 */
function referenceRow(
  ctx: BenchContext,
  transport: (typeof TRANSPORTS)[number],
  direct: Target,
  n: number,
  iterations: number,
): Promise<Row> {
  const through = viaProxy(ctx.sim, ctx.proxy.url, direct);
  return burstRow(
    ctx,
    { direct, through, n, iterations },
    {
      id: `concurrency.${transport}.reference.${n}`,
      label: `${n} concurrent 3840x2160, ${TRANSPORT_LABEL[transport]}, floor: streaming Node proxy`,
    },
  );
}

/**
 * The same burst through a gateway child with the gallery off: what keeping 16 images costs the
 * burst (each one's decoded PNG written to disk while it streams), beside the floor, which writes
 * nothing. Information, no target.
 */
async function galleryOffRow(
  ctx: BenchContext,
  transport: (typeof TRANSPORTS)[number],
  direct: Target,
  n: number,
  iterations: number,
  floorP50: number | null,
): Promise<Row> {
  const off = await startExtraGateway(ctx, false);
  try {
    const params = { size: '3840x2160', quality: 'medium', partialImages: 0 } as const;
    const through = throughGeneration(off.gateway.url, off.setup, transport, params);
    return await burstRow(
      ctx,
      { direct, through, n, iterations },
      {
        id: `concurrency.${transport}.${n}.off`,
        label: `${n} concurrent 3840x2160, ${TRANSPORT_LABEL[transport]}, gallery off, total time`,
        floorP50,
      },
    );
  } finally {
    await off.close();
  }
}
