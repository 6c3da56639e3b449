import { performance } from 'node:perf_hooks';
import { checkImagesJson } from '../check';
import { startBaselineGateway } from '../baseline';
import { runBlocks, type Variant } from '../blocks';
import type { BenchContext, PeakMemory } from '../context';
import { waitIdle } from '../cpu';
import { startExtraGateway, type ExtraGateway } from '../gateways';
import { watchPeak } from '../memory';
import { timedPost, type Target } from '../http';
import { timeRow, type Row } from '../report';
import { ratioByRound } from '../rounds';
import { directGeneration, throughGeneration, viaProxy } from '../requests';
import { TRANSPORT_LABEL } from '../setup';
import { distribution, formatMb, MB } from '../stats';
import { baselineRow } from '../versusBaseline';
import type { Way } from '../ways';

/** Issue 16: within 1.25x of the floor's time (the same burst through the do-nothing proxy). */
const FLOOR_TIME_RATIO = 1.25;
/** Issue 16: peak RSS at most 250 MB + 0.5 x the base64 in flight. */
const RSS_BASE = 250 * MB;
const RSS_PER_B64_BYTE = 0.5;
const TRANSPORTS = ['apiKey', 'bridge'] as const;
type Transport = (typeof TRANSPORTS)[number];
/** The level timed against the floor (issue 16: 16 x 4K at once). */
const TIMED_N = 16;

/** N requests at the same moment; resolves to the ms until the last answer has arrived. */
async function burst(target: Target, n: number): Promise<number> {
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
        (transport === 'apiKey' || l.n === TIMED_N) &&
        ctx.wants(`concurrency.${transport}.${l.n}.`),
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
      // The simulator's own peak too: it holds every answer it is making at once.
      const simWatch = watchPeak(ctx.sim.pid);
      const label = `${n} concurrent 3840x2160, ${TRANSPORT_LABEL[transport]}`;
      let memory: PeakMemory;
      if (n === TIMED_N) {
        const measured = await timedBursts(ctx, transport, direct, through, iterations);
        memory = measured.memory;
        rows.push(...measured.rows);
      } else {
        // 64 at once: the peak RSS only (a round takes over a minute; no floor to time against).
        // Two ways only, direct and installed, in rounds (no warm-up burst: the first request
        // of the fresh child warms it; this level is about memory).
        const measured = await ctx.withPeak(
          async () => {
            await timedPost(through()); // the fresh child's first request
            const variants: Array<Variant<'direct' | 'installed'>> = [
              { name: 'direct', call: () => burst(direct, n) },
              { name: 'installed', call: () => burst(through(), n), gateway: ctx.gateway },
            ];
            return runBlocks(variants, iterations, 1);
          },
          { fresh: true, label: `concurrency.${transport}.${n}` },
        );
        memory = measured.memory;
        const result = measured.value;
        const d = distribution(result.samples.direct);
        const t = distribution(result.samples.installed);
        const cpu =
          distribution(result.cpuInMs.installed ?? []).p50 +
          distribution(result.cpuAfterMs.installed ?? []).p50;
        rows.push(
          timeRow({
            id: `concurrency.${transport}.${n}.time`,
            label: `${label}, total time`,
            direct: d,
            through: t,
            details: {
              rounds: iterations,
              gatewayCpuMsPerRequest: cpu / n,
              settleMs: distribution(result.settleMs.installed ?? []).p50,
            },
          }),
        );
        ctx.log(`${label}: direct ${d.p50.toFixed(0)} ms, through ${t.p50.toFixed(0)} ms`);
      }
      const simPeakBytes = simWatch.stop().peakBytes;
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
        details: {
          b64BytesPerImage: b64Bytes,
          b64BytesInFlight: inFlight,
          gatewayMemory: memory,
          simulatorPeakBytes: simPeakBytes,
        },
      });
      ctx.log(`${label}: gateway peak ${formatMb(memory.peakBytes)}`);
    }
  }
  return rows;
}

type BurstVariant = Way;

/**
 * 16 x 4K at once four ways (five with --baseline), one burst each per round, in turn (runBlocks: the order turns each
 * round and reverses every other one), so all four meet the same machine:
 *
 * - direct: the simulator itself;
 * - floor: the same burst through the do-nothing streaming Node proxy (for the bridge, carrying
 *   the bridge's bytes), which reads and writes every byte once more and keeps nothing;
 * - installed: a fresh gateway child as installed, whose peak RSS is measured over the rounds;
 * - off: a gateway child with the gallery off, what keeping the 16 images costs;
 * - baseline (with --baseline): the other checkout's gateway as installed.
 *
 * Measured one after the other, minutes apart, the floor moved by half between runs on a quiet
 * machine (docs/benchmarks.md), more than the difference the target is about.
 */
async function timedBursts(
  ctx: BenchContext,
  transport: Transport,
  direct: Target,
  through: () => Target,
  rounds: number,
): Promise<{ rows: Row[]; memory: PeakMemory }> {
  const n = TIMED_N;
  const off = await startExtraGateway(ctx, false);
  let baseline: ExtraGateway | null = null;
  try {
    // Its gallery as the bench's own gateway's (as installed unless --keep-api-images off).
    baseline = ctx.baseline ? await startBaselineGateway(ctx, ctx.plan.keepApiImages) : null;
    const params = { size: '3840x2160', quality: 'medium', partialImages: 0 } as const;
    const offTarget = throughGeneration(off.gateway.url, off.setup, transport, params);
    const baselineTarget =
      baseline && throughGeneration(baseline.gateway.url, baseline.setup, transport, params);
    const floorTarget = viaProxy(ctx.sim, ctx.proxy.url, direct);
    const { value: result, memory } = await ctx.withPeak(
      async () => {
        // Each way's first burst is not timed: a fresh child's first grows its memory (the
        // heap, the gallery's buffers), fresh pages that cost it 0.5-1 s more on these VMs and
        // that a gateway running for days has long had. The peak RSS still counts it.
        for (const target of [floorTarget, offTarget, through(), baselineTarget])
          if (target) await burst(target, n);
        await Promise.all([
          ctx.settle(),
          waitIdle(off.gateway.pid),
          baseline && waitIdle(baseline.gateway.pid),
        ]);
        const variants: Array<Variant<BurstVariant>> = [
          { name: 'direct', call: () => burst(direct, n) },
          { name: 'floor', call: () => burst(floorTarget, n) },
          { name: 'installed', call: () => burst(through(), n), gateway: ctx.gateway },
          { name: 'off', call: () => burst(offTarget, n), gateway: off.gateway },
          ...(baseline && baselineTarget
            ? [
                {
                  name: 'baseline' as const,
                  call: () => burst(baselineTarget, n),
                  gateway: baseline.gateway,
                },
              ]
            : []),
        ];
        return runBlocks(variants, rounds, 1);
      },
      { fresh: true, label: `concurrency.${transport}.${n}` },
    );
    const of = (name: BurstVariant) => distribution(result.samples[name]);
    const d = of('direct');
    const floor = of('floor').p50;
    const label = `${n} concurrent 3840x2160, ${TRANSPORT_LABEL[transport]}`;
    const id = `concurrency.${transport}.${n}`;
    const cpuPerImage = (name: BurstVariant) => {
      const inMs = distribution(result.cpuInMs[name] ?? []).p50;
      const afterMs = distribution(result.cpuAfterMs[name] ?? []).p50;
      return (inMs + afterMs) / n;
    };
    // Each round's burst against the floor's burst in the same round: the verdict uses the median
    // of these ratios, the spread is how far the rounds moved it.
    const roundRatio = (name: BurstVariant) => {
      const r = ratioByRound(result.byRound[name], result.byRound.floor);
      return {
        median: r.median,
        spread: { min: r.min, max: r.max, rounds: r.rounds, unit: 'x' as const },
      };
    };
    const versusFloor = (name: BurstVariant) => ({
      rounds,
      floorMs: floor,
      ratioToFloor: of(name).p50 / floor,
      gatewayCpuMsPerRequest: cpuPerImage(name),
      settleMs: distribution(result.settleMs[name] ?? []).p50,
    });
    const rows = [
      timeRow({
        id: `${id}.time`,
        label: `${label}, total time`,
        direct: d,
        through: of('installed'),
        spread: roundRatio('installed').spread,
        target: `<= ${FLOOR_TIME_RATIO}x the floor's time`,
        pass: roundRatio('installed').median <= FLOOR_TIME_RATIO,
        details: {
          ...versusFloor('installed'),
          ratioToFloorByRound: roundRatio('installed').median,
        },
      }),
      timeRow({
        id: `concurrency.${transport}.reference.${n}`,
        label: `${label}, floor: streaming Node proxy`,
        direct: d,
        through: of('floor'),
        details: { rounds },
      }),
      timeRow({
        id: `${id}.off`,
        label: `${label}, gallery off, total time`,
        direct: d,
        through: of('off'),
        spread: roundRatio('off').spread,
        details: { ...versusFloor('off'), ratioToFloorByRound: roundRatio('off').median },
      }),
      ...(baseline
        ? [
            baselineRow({
              id,
              label,
              unit: 'ms',
              installed: result.byRound.installed,
              baseline: result.byRound.baseline,
              commit: ctx.baseline?.commit ?? '',
            }),
          ]
        : []),
    ];
    ctx.log(
      `${label}: direct ${d.p50.toFixed(0)}, floor ${floor.toFixed(0)}, installed ` +
        `${of('installed').p50.toFixed(0)} (${(of('installed').p50 / floor).toFixed(2)}x), ` +
        `gallery off ${of('off').p50.toFixed(0)} ms (${(of('off').p50 / floor).toFixed(2)}x)`,
    );
    return { rows, memory };
  } finally {
    await off.close();
    await baseline?.close();
  }
}
