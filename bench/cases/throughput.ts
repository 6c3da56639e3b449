import { performance } from 'node:perf_hooks';
import { checkImagesJson } from '../check';
import { alternate, type BenchContext } from '../context';
import { timedPost, type Target } from '../http';
import type { Row } from '../report';
import { directGeneration, throughGeneration } from '../requests';
import { distribution } from '../stats';

/** The smallest valid size (655,360 pixels, the minimum), low quality: per-request overhead shows most. */
const SMALL = { size: '1024x640', width: 1024, height: 640 } as const;
const TARGET_SHARE = 0.8;

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
  ctx.log(`small images: direct ${d.p50.toFixed(1)} req/s, through ${t.p50.toFixed(1)} req/s`);
  return [
    ...(await referenceRow(ctx, direct)),
    {
      id: 'throughput.small',
      label: `${requests} x ${SMALL.size} low PNG at concurrency ${concurrency}`,
      unit: 'req/s',
      direct: d,
      through: t,
      addedMs: null,
      ratio: share,
      target: `>= ${TARGET_SHARE * 100} % of direct`,
      pass: share >= TARGET_SHARE,
      details: {
        rounds,
        gatewayCpuMsPerRequest: distribution(value.throughCpuMs).p50 / requests,
        settleMs: distribution(value.settleMs).p50,
        gatewayMemory: memory,
      },
    },
  ];
}

/**
 * The floor: the same load through a Node proxy that only streams bytes through. On a 2-core
 * machine the upstream, the client and any proxy share the CPU, so even this costs throughput.
 */
async function referenceRow(ctx: BenchContext, direct: Target): Promise<Row[]> {
  const id = 'throughput.reference.stream';
  if (!ctx.wants(id)) return [];
  const { requests, concurrency, rounds } = ctx.plan.throughput;
  const through = { ...direct, url: direct.url.replace(ctx.sim.url, `${ctx.proxy.url}/stream`) };
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
