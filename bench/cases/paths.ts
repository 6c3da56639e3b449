import { checkImagesJson } from '../check';
import type { BenchContext } from '../context';
import { startBaselineGateway } from '../baseline';
import { runBlocks, warmUp, type Blocks, type Variant } from '../blocks';
import { waitIdle, waitQuiet } from '../cpu';
import { timedPost, type Target } from '../http';
import { startExtraGateway } from '../gateways';
import { timeRow, type Row } from '../report';
import { directGeneration, throughGeneration, viaProxy } from '../requests';
import { TRANSPORT_LABEL } from '../setup';
import { addedByRound } from '../rounds';
import { distribution } from '../stats';
import { baselineRow } from '../versusBaseline';
import type { Way } from '../ways';

const SIZES = [
  { size: '1024x1024', width: 1024, height: 1024, block: 6 },
  { size: '3840x2160', width: 3840, height: 2160, block: 3 },
] as const;
const PATHS = ['apiKey', 'bridge'] as const;

/** Issue 16's targets, as installed: API-key added p50 within 1.25x the floor's (+2 ms). */
const FLOOR_RATIO = 1.25;
const FLOOR_SLACK_MS = 2;
/** The bridge's added p50 at most 1.5x the API-key path's. */
const BRIDGE_RATIO = 1.5;
/**
 * The gallery's thumbnails wait for a second without images (gallery/store.ts QUIET_MS): after an
 * installed gateway's block, the harness waits until it has been quiet this long, so the deferred
 * work is done and counted in that block's CPU, not in whatever runs next.
 */
const QUIET_WINDOW_MS = 1500;
const QUIET_MAX_CPU_MS = 20;

type VariantName = Way;

/**
 * Both upstream paths (API key; subscription through the Responses bridge), one image at a time,
 * with a client that does not wait for the gateway to go idle: each variant runs a block of
 * requests back to back, so whatever the gateway does after a reply (the usage record, the
 * gallery's file and thumbnail) meets the next request, as it does for a real client. Four
 * (five) variants per path and size, in blocks whose order turns every round (ABBA over the rounds):
 *
 * - direct: the simulator itself;
 * - floor: the same request through the do-nothing streaming Node proxy (for the bridge, that
 *   proxy carrying the bridge's SSE bytes);
 * - installed: the gateway as installed, the gallery keeping every image;
 * - off: the gateway with the gallery off (keep_api_images false);
 * - baseline (with --baseline): the other checkout's gateway as installed.
 *
 * The gateways are children of their own (fresh data folders), so their CPU is theirs. Between
 * blocks each gateway settles; the installed one until it has been quiet long enough for its
 * deferred thumbnails to be made and counted in its CPU per request.
 */
export async function pathsCases(ctx: BenchContext): Promise<Row[]> {
  const wanted = SIZES.flatMap((spec) =>
    PATHS.filter((p) => ctx.wants(`paths.${p}.${spec.size}`)).map((p) => ({ spec, path: p })),
  );
  if (wanted.length === 0) return [];
  const installed = await startExtraGateway(ctx, true);
  const off = await startExtraGateway(ctx, false);
  const baseline = ctx.baseline ? await startBaselineGateway(ctx, true) : null;
  const rows: Row[] = [];
  try {
    for (const spec of SIZES) {
      let apiKeyAdded: number | null = null;
      for (const path of PATHS) {
        if (!wanted.some((w) => w.spec === spec && w.path === path)) continue;
        const params = { size: spec.size, quality: 'medium', partialImages: 0 } as const;
        const direct = directGeneration(ctx.sim, ctx.setup, path, params);
        const targets: Partial<Record<VariantName, Target>> = {
          direct,
          floor: viaProxy(ctx.sim, ctx.proxy.url, direct),
          installed: throughGeneration(installed.gateway.url, installed.setup, path, params),
          off: throughGeneration(off.gateway.url, off.setup, path, params),
          ...(baseline && {
            baseline: throughGeneration(baseline.gateway.url, baseline.setup, path, params),
          }),
        };
        const call = (name: VariantName) => async () => (await timedPost(targets[name]!)).ms;
        const quiet = (pid: number) => waitQuiet(pid, QUIET_WINDOW_MS, QUIET_MAX_CPU_MS);
        const variants: Array<Variant<VariantName>> = [
          { name: 'direct', call: call('direct') },
          { name: 'floor', call: call('floor') },
          // The installed gateway settles until its deferred thumbnails are made and counted.
          { name: 'installed', call: call('installed'), gateway: installed.gateway, settle: quiet },
          { name: 'off', call: call('off'), gateway: off.gateway },
          // The baseline keeps its images too: it settles as the installed one does.
          ...(baseline
            ? [
                {
                  name: 'baseline' as const,
                  call: call('baseline'),
                  gateway: baseline.gateway,
                  settle: quiet,
                },
              ]
            : []),
        ];
        // A spot check of what each gateway answers, then the untimed warm-up calls per way.
        for (const v of variants) {
          const answer = await timedPost(targets[v.name]!, v.gateway !== undefined);
          if (v.gateway) await checkImagesJson(answer.body!, spec.width, spec.height);
        }
        await warmUp(variants, ctx.plan.warmup - 1);
        await Promise.all([waitIdle(installed.gateway.pid), waitIdle(off.gateway.pid)]);
        await quiet(installed.gateway.pid);
        if (baseline) await quiet(baseline.gateway.pid);
        const rounds = ctx.plan.paths.rounds;
        const result = await runBlocks(variants, rounds, spec.block);
        const d = distribution(result.samples.direct);
        const of = (name: VariantName) => distribution(result.samples[name]);
        // Each way's added time round by round (its median minus direct's in the same round):
        // the verdict uses the median over the rounds, the spread says how far noise moved it.
        const added = (name: VariantName) => {
          const s = addedByRound(result.byRound[name], result.byRound.direct);
          return {
            addedMs: s.median,
            spread: { min: s.min, max: s.max, rounds: s.rounds, unit: 'ms' as const },
          };
        };
        const floor = of('floor');
        const kept = of('installed');
        const floorAdded = added('floor').addedMs;
        const keptAdded = added('installed').addedMs;
        const label = `${spec.size} PNG, ${TRANSPORT_LABEL[path]}`;
        const id = `paths.${path}.${spec.size}`;
        const cpu = (name: VariantName) => ({
          gatewayCpuMsPerCall: median(result.cpuInMs[name]) + median(result.cpuAfterMs[name]),
          gatewayCpuMsInRequests: median(result.cpuInMs[name]),
          gatewayCpuMsAfter: median(result.cpuAfterMs[name]),
          settleMs: median(result.settleMs[name]),
        });
        let target: string;
        let pass: boolean | null;
        if (path === 'apiKey') {
          apiKeyAdded = keptAdded;
          target = `added <= ${FLOOR_RATIO}x floor + ${FLOOR_SLACK_MS} ms`;
          pass = keptAdded <= FLOOR_RATIO * floorAdded + FLOOR_SLACK_MS;
        } else {
          target = `added <= ${BRIDGE_RATIO}x API-key path`;
          pass = apiKeyAdded === null ? null : keptAdded <= BRIDGE_RATIO * apiKeyAdded;
        }
        const common = { rounds, block: spec.block, clientWaitsForIdle: false };
        rows.push(
          timeRow({
            id: `${id}.floor`,
            label: `${label}, floor: streaming Node proxy`,
            direct: d,
            through: floor,
            ...added('floor'),
            details: common,
          }),
          timeRow({
            id: `${id}.installed`,
            label: `${label}, as installed, no wait`,
            direct: d,
            through: kept,
            ...added('installed'),
            target,
            pass,
            details: {
              ...common,
              ...cpu('installed'),
              floorAddedMs: floorAdded,
              ratioToFloorAdded: keptAdded / floorAdded,
            },
          }),
          timeRow({
            id: `${id}.off`,
            label: `${label}, gallery off, no wait`,
            direct: d,
            through: of('off'),
            ...added('off'),
            details: { ...common, ...cpu('off') },
          }),
          cpuRow(`${id}.cpu`, label, result),
        );
        if (baseline) {
          rows.push(
            baselineRow({
              id,
              label: `${label}, no wait`,
              unit: 'ms',
              installed: result.byRound.installed,
              baseline: result.byRound.baseline,
              commit: ctx.baseline?.commit ?? '',
            }),
          );
        }
        ctx.log(
          `${label} (no wait): added over direct, median of ${rounds} rounds: floor ` +
            `${floorAdded.toFixed(1)}, installed ${keptAdded.toFixed(1)}, off ` +
            `${added('off').addedMs.toFixed(1)} ms; gateway CPU ` +
            `per image ${cpu('installed').gatewayCpuMsPerCall.toFixed(0)} ms installed, ` +
            `${cpu('off').gatewayCpuMsPerCall.toFixed(0)} ms off`,
        );
      }
    }
  } finally {
    await installed.close();
    await off.close();
    await baseline?.close();
  }
  return rows;
}

/** Gateway CPU per request: gallery off against installed; the difference is the kept image. */
function cpuRow(id: string, label: string, result: Blocks<VariantName>): Row {
  const perCall = (name: VariantName) =>
    distribution(
      (result.cpuInMs[name] ?? []).map((inMs, i) => inMs + (result.cpuAfterMs[name]?.[i] ?? 0)),
    );
  const off = perCall('off');
  const kept = perCall('installed');
  return {
    id,
    label: `${label}, gateway CPU per image: gallery off / as installed`,
    unit: 'ms',
    direct: off,
    through: kept,
    addedMs: kept.p50 - off.p50,
    ratio: off.p50 > 0 ? kept.p50 / off.p50 : null,
    target: '-',
    pass: null,
    details: {
      note: 'ms of gateway CPU per request, deferred work included; added = what keeping costs',
    },
  };
}

const median = (values: readonly number[] | undefined): number =>
  values && values.length > 0 ? distribution(values).p50 : Number.NaN;
