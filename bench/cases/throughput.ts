import { performance } from 'node:perf_hooks';
import { checkImagesJson } from '../check';
import { runBlocks, WARMUP_CALLS, type Variant } from '../blocks';
import type { BenchContext } from '../context';
import { machineBusyMs, waitIdle } from '../cpu';
import { startBaselineGateway } from '../baseline';
import { startExtraGateway, type ExtraGateway } from '../gateways';
import { timedFetch, timedPost, type Target } from '../http';
import type { Row } from '../report';
import { directGeneration, throughGeneration, viaProxy } from '../requests';
import { ratioByRound } from '../rounds';
import { distribution } from '../stats';
import { baselineRow } from '../versusBaseline';

/** The smallest valid size (655,360 pixels, the minimum), low quality: per-request overhead shows most. */
const SMALL = { size: '1024x640', width: 1024, height: 640 } as const;
/** Issue 16: as installed, at least 0.9x the rate through the do-nothing streaming proxy. */
const FLOOR_SHARE = 0.9;

/** The two clients the rate is measured with (issue 26): undici's `request` and `fetch`. */
type Client = (target: Target) => Promise<unknown>;

/** `requests` calls through `concurrency` workers; answers requests per second. */
async function drive(
  target: Target,
  requests: number,
  concurrency: number,
  client: Client = timedPost,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < requests) {
      next += 1;
      await client(target);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return requests / ((performance.now() - started) / 1000);
}

type Way = 'direct' | 'floor' | 'gateway' | 'other' | 'baseline' | 'floorFetch' | 'gatewayFetch';

/**
 * Many small images at a fixed concurrency (API-key transport), six ways (seven with --baseline:
 * the other checkout's gateway, its gallery set as the gateway's) in interleaved rounds
 * (runBlocks: the order turns each round): direct, the floor (the do-nothing streaming Node proxy),
 * the gateway as the plan sets its gallery (as installed by default), a second gateway child
 * with the gallery set the other way, and the floor and the gateway again with `fetch` as the
 * client instead of undici's `request`. One call is one load of `requests`; its figure is req/s.
 * Each target compares the gateway's rate with the floor's, by the same client, in the same
 * round, over the rounds.
 */
export async function throughputCases(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.wants('throughput.small')) return [];
  const { requests, concurrency, rounds } = ctx.plan.throughput;
  const params = { size: SMALL.size, quality: 'low', partialImages: 0 } as const;
  const direct = directGeneration(ctx.sim, ctx.setup, 'apiKey', params);
  const floorTarget = viaProxy(ctx.sim, ctx.proxy.url, direct);
  const keepOther = !ctx.plan.keepApiImages;
  const other = await startExtraGateway(ctx, keepOther);
  let baseline: ExtraGateway | null = null;
  let mine: ExtraGateway | null = null;
  try {
    // The baseline's gallery as the plan sets the gateway's, and beside it a fresh gateway of
    // this tree as the installed way: installed / baseline compares alike (ways.ts).
    mine = ctx.baseline ? await startExtraGateway(ctx, ctx.plan.keepApiImages) : null;
    baseline = ctx.baseline ? await startBaselineGateway(ctx, ctx.plan.keepApiImages) : null;
    const installed = mine ?? { gateway: ctx.gateway, setup: ctx.setup };
    const through = throughGeneration(installed.gateway.url, installed.setup, 'apiKey', params);
    await checkImagesJson((await timedPost(through, true)).body!, SMALL.width, SMALL.height);
    const otherTarget = throughGeneration(other.gateway.url, other.setup, 'apiKey', params);
    const baselineTarget =
      baseline && throughGeneration(baseline.gateway.url, baseline.setup, 'apiKey', params);
    const targets: Partial<Record<Way, Target>> = {
      direct,
      floor: floorTarget,
      gateway: through,
      other: otherTarget,
      ...(baselineTarget && { baseline: baselineTarget }),
    };
    // Warm-up: one load of `concurrency` (16 >= 10) requests per way and client, untimed.
    for (const target of Object.values(targets))
      await drive(target, Math.max(WARMUP_CALLS, concurrency), concurrency);
    for (const target of [floorTarget, through])
      await drive(target, Math.max(WARMUP_CALLS, concurrency), concurrency, timedFetch);
    await Promise.all([
      ctx.settle(),
      mine && waitIdle(mine.gateway.pid),
      waitIdle(other.gateway.pid),
      baseline && waitIdle(baseline.gateway.pid),
    ]);
    // The whole machine's CPU per request while each way's load ran (every process, the kernel,
    // the hypervisor's steal): on two cores the rate is bound by it, so it says what a way may
    // spend to keep up with another (docs/benchmarks.md, "What the floor's rate leaves").
    const machineMs: Partial<Record<Way, number[]>> = {};
    const load =
      (way: Way, target: Target, client: Client = timedPost) =>
      async () => {
        const before = machineBusyMs();
        const rate = await drive(target, requests, concurrency, client);
        (machineMs[way] ??= []).push((machineBusyMs() - before) / requests);
        return rate;
      };
    const variants: Array<Variant<Way>> = [
      { name: 'direct', call: load('direct', direct) },
      { name: 'floor', call: load('floor', floorTarget) },
      { name: 'gateway', call: load('gateway', through), gateway: installed.gateway },
      { name: 'other', call: load('other', otherTarget), gateway: other.gateway },
      // The same floor and installed gateway with fetch as the client.
      { name: 'floorFetch', call: load('floorFetch', floorTarget, timedFetch) },
      {
        name: 'gatewayFetch',
        call: load('gatewayFetch', through, timedFetch),
        gateway: installed.gateway,
      },
      ...(baseline && baselineTarget
        ? [
            {
              name: 'baseline' as const,
              call: load('baseline', baselineTarget),
              gateway: baseline.gateway,
            },
          ]
        : []),
    ];
    const { value: result, memory } = await ctx.withPeak(() => runBlocks(variants, rounds, 1), {
      of: mine?.gateway,
    });
    const of = (way: Way) => distribution(result.samples[way]);
    const versus = (way: Way, reference: Way) => {
      const s = ratioByRound(result.byRound[way], result.byRound[reference]);
      return {
        ratio: s.median,
        spread: { min: s.min, max: s.max, rounds: s.rounds, unit: 'x' as const },
      };
    };
    const d = of('direct');
    const floorRate = of('floor').p50;
    const toFloor = versus('gateway', 'floor');
    const toFloorFetch = versus('gatewayFetch', 'floorFetch');
    const cpuPerRequest = (way: Way) =>
      (distribution(result.cpuInMs[way] ?? []).p50 +
        distribution(result.cpuAfterMs[way] ?? []).p50) /
      requests;
    // The part spent while the block ran: what competes with the requests for the machine.
    const cpuInBlockPerRequest = (way: Way) =>
      distribution(result.cpuInMs[way] ?? []).p50 / requests;
    const machinePerRequest = (way: Way) => distribution(machineMs[way] ?? []).p50;
    const label = `${requests} x ${SMALL.size} low PNG at concurrency ${concurrency}`;
    const installedGallery = ctx.plan.keepApiImages ? 'on (as installed)' : 'off';
    ctx.log(
      `small images: direct ${d.p50.toFixed(1)}, floor ${floorRate.toFixed(1)}, gateway ` +
        `${of('gateway').p50.toFixed(1)}, other gallery ${of('other').p50.toFixed(1)} req/s; ` +
        `gateway / floor ${toFloor.ratio.toFixed(2)}x (rounds ${toFloor.spread.min.toFixed(2)}` +
        `..${toFloor.spread.max.toFixed(2)}); with fetch: floor ${of('floorFetch').p50.toFixed(1)}` +
        `, gateway ${of('gatewayFetch').p50.toFixed(1)} req/s, ${toFloorFetch.ratio.toFixed(2)}x`,
    );
    ctx.log(
      `  machine CPU per request: direct ${machinePerRequest('direct').toFixed(2)}, floor ` +
        `${machinePerRequest('floor').toFixed(2)}, gateway ${machinePerRequest('gateway').toFixed(2)}` +
        `, other gallery ${machinePerRequest('other').toFixed(2)} ms`,
    );
    const row = (
      id: string,
      rowLabel: string,
      way: Way,
      reference: Way,
      extra: Partial<Row>,
    ): Row => ({
      id,
      label: rowLabel,
      unit: 'req/s',
      direct: d,
      through: of(way),
      addedMs: null,
      ...versus(way, reference),
      target: '-',
      pass: null,
      ...extra,
    });
    /** A row judged against the floor's rate by the same client: FLOOR_SHARE of it at least. */
    const floorShareRow = (
      id: string,
      client: string,
      way: Way,
      floor: Way,
      details: Row['details'],
    ): Row =>
      row(id, `${label}, gallery ${installedGallery}${client}`, way, floor, {
        target: `>= ${FLOOR_SHARE}x the floor's rate`,
        pass: versus(way, floor).ratio >= FLOOR_SHARE,
        details,
      });
    return [
      row(
        'throughput.reference.stream',
        `${label}, floor: streaming Node proxy (ratio to direct)`,
        'floor',
        'direct',
        {
          details: {
            rounds,
            machineCpuMsPerRequest: machinePerRequest('floor'),
            directMachineCpuMsPerRequest: machinePerRequest('direct'),
          },
        },
      ),
      floorShareRow('throughput.small', ' (ratio to floor)', 'gateway', 'floor', {
        rounds,
        floorRate,
        ratioToDirect: of('gateway').p50 / d.p50,
        keepApiImages: ctx.plan.keepApiImages,
        gatewayCpuMsPerRequest: cpuPerRequest('gateway'),
        gatewayCpuInBlockMsPerRequest: cpuInBlockPerRequest('gateway'),
        machineCpuMsPerRequest: machinePerRequest('gateway'),
        settleMs: distribution(result.settleMs.gateway ?? []).p50,
        gatewayMemory: memory,
      }),
      floorShareRow(
        'throughput.small.fetch',
        ', fetch as the client (ratio to the floor with fetch)',
        'gatewayFetch',
        'floorFetch',
        {
          rounds,
          floorRate: of('floorFetch').p50,
          keepApiImages: ctx.plan.keepApiImages,
          machineCpuMsPerRequest: machinePerRequest('gatewayFetch'),
          floorMachineCpuMsPerRequest: machinePerRequest('floorFetch'),
        },
      ),
      row(
        'throughput.small.other-gallery',
        `${label}, gallery ${keepOther ? 'on (as installed)' : 'off'} (ratio to floor)`,
        'other',
        'floor',
        {
          details: {
            rounds,
            keepApiImages: keepOther,
            gatewayCpuMsPerRequest: cpuPerRequest('other'),
            gatewayCpuInBlockMsPerRequest: cpuInBlockPerRequest('other'),
            machineCpuMsPerRequest: machinePerRequest('other'),
          },
        },
      ),
      ...(baseline
        ? [
            baselineRow({
              id: 'throughput.small',
              label,
              unit: 'req/s',
              installed: result.byRound.gateway,
              baseline: result.byRound.baseline,
              commit: ctx.baseline?.commit ?? '',
            }),
          ]
        : []),
    ];
  } finally {
    await other.close();
    await mine?.close();
    await baseline?.close();
  }
}
