import { performance } from 'node:perf_hooks';
import { checkImagesJson } from '../check';
import { alternate, type BenchContext } from '../context';
import { waitIdle } from '../cpu';
import { startExtraGateway } from '../gateways';
import { timedPost, type Target } from '../http';
import type { Row } from '../report';
import { directGeneration, throughGeneration, viaProxy } from '../requests';
import { distribution } from '../stats';

/** The smallest valid size (655,360 pixels, the minimum), low quality: per-request overhead shows most. */
const SMALL = { size: '1024x640', width: 1024, height: 640 } as const;
/** Issue 16: as installed, at least 0.9x the rate through the do-nothing streaming proxy. */
const FLOOR_SHARE = 0.9;

/** `requests` calls through `concurrency` workers; answers requests per second. */
async function drive(target: Target, requests: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < requests) {
      next += 1;
      await timedPost(target);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return requests / ((performance.now() - started) / 1000);
}

/** Many small images at a fixed concurrency (API-key transport): requests per second. */
export async function throughputCases(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.wants('throughput.small')) return [];
  const { requests, concurrency, rounds } = ctx.plan.throughput;
  const params = { size: SMALL.size, quality: 'low', partialImages: 0 } as const;
  const direct = directGeneration(ctx.sim, ctx.setup, 'apiKey', params);
  const through = throughGeneration(ctx.gateway.url, ctx.setup, 'apiKey', params);
  await drive(direct, concurrency, concurrency);
  await checkImagesJson((await timedPost(through, true)).body!, SMALL.width, SMALL.height);
  await drive(through, concurrency, concurrency);

  const floor = await referenceRow(ctx, direct);
  const { value, memory } = await ctx.withPeak(() =>
    alternate(ctx, {
      warmup: 0,
      iterations: rounds,
      direct: () => drive(direct, requests, concurrency),
      through: () => drive(through, requests, concurrency),
    }),
  );
  const rates = { direct: value.direct, through: value.through };
  const d = distribution(rates.direct);
  const t = distribution(rates.through);
  const share = t.p50 / d.p50;
  const other = await otherGalleryRow(ctx, direct);
  const floorRate = floor[0]?.through?.p50 ?? null;
  ctx.log(`small images: direct ${d.p50.toFixed(1)} req/s, through ${t.p50.toFixed(1)} req/s`);
  return [
    ...floor,
    {
      id: 'throughput.small',
      label: `${requests} x ${SMALL.size} low PNG at concurrency ${concurrency}`,
      unit: 'req/s',
      direct: d,
      through: t,
      addedMs: null,
      ratio: share,
      target: `>= ${FLOOR_SHARE}x the floor's rate`,
      pass: floorRate === null ? null : t.p50 >= FLOOR_SHARE * floorRate,
      details: {
        rounds,
        floorRate,
        ratioToFloor: floorRate === null ? null : t.p50 / floorRate,
        keepApiImages: ctx.plan.keepApiImages,
        gatewayCpuMsPerRequest: distribution(value.throughCpuMs).p50 / requests,
        settleMs: distribution(value.settleMs).p50,
        gatewayMemory: memory,
      },
    },
    ...other,
  ];
}

/**
 * The same load through a second gateway child with the gallery set the other way (off, when the
 * run is as installed): what keeping every image costs the rate, in the same run.
 */
async function otherGalleryRow(ctx: BenchContext, direct: Target): Promise<Row[]> {
  const id = 'throughput.small.other-gallery';
  if (!ctx.wants(id)) return [];
  const { requests, concurrency, rounds } = ctx.plan.throughput;
  const keep = !ctx.plan.keepApiImages;
  const other = await startExtraGateway(ctx, keep);
  try {
    const params = { size: SMALL.size, quality: 'low', partialImages: 0 } as const;
    const through = throughGeneration(other.gateway.url, other.setup, 'apiKey', params);
    await drive(through, concurrency, concurrency);
    const value: { direct: number[]; through: number[] } = { direct: [], through: [] };
    for (let i = 0; i < rounds; i += 1) {
      // ABBA, settling the other gateway after its turn as alternate() does for the main one.
      const order =
        i % 2 === 0 ? (['direct', 'through'] as const) : (['through', 'direct'] as const);
      for (const side of order) {
        value[side].push(await drive(side === 'direct' ? direct : through, requests, concurrency));
        if (side === 'through') await waitIdle(other.gateway.pid);
      }
    }
    const d = distribution(value.direct);
    const t = distribution(value.through);
    return [
      {
        id,
        label: `${requests} x ${SMALL.size} low PNG, gallery ${keep ? 'on (as installed)' : 'off'}`,
        unit: 'req/s',
        direct: d,
        through: t,
        addedMs: null,
        ratio: t.p50 / d.p50,
        target: '-',
        pass: null,
        details: { rounds, keepApiImages: keep },
      },
    ];
  } finally {
    await other.close();
  }
}

/**
 * The floor: the same load through a Node proxy that only streams bytes through. On a 2-core
 * machine the upstream, the client and any proxy share the CPU, so even this costs throughput.
 */
async function referenceRow(ctx: BenchContext, direct: Target): Promise<Row[]> {
  const id = 'throughput.reference.stream';
  if (!ctx.wants(id)) return [];
  const { requests, concurrency, rounds } = ctx.plan.throughput;
  const through = viaProxy(ctx.sim, ctx.proxy.url, direct);
  await drive(through, concurrency, concurrency);
  const value = await alternate(ctx, {
    warmup: 0,
    iterations: rounds,
    direct: () => drive(direct, requests, concurrency),
    through: () => drive(through, requests, concurrency),
  });
  const d = distribution(value.direct);
  const t = distribution(value.through);
  ctx.log(
    `small images, streaming proxy: direct ${d.p50.toFixed(1)}, through ${t.p50.toFixed(1)} req/s`,
  );
  return [
    {
      id,
      label: `${requests} x ${SMALL.size} low PNG, reference: streaming Node proxy`,
      unit: 'req/s',
      direct: d,
      through: t,
      addedMs: null,
      ratio: t.p50 / d.p50,
      target: '-',
      pass: null,
      details: { rounds },
    },
  ];
}
