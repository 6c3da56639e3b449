import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { runBlocks, warmUp } from '../blocks';
import { checkImagesJson } from '../check';
import type { BenchContext } from '../context';
import { timedPost, type Target } from '../http';
import type { Row } from '../report';
import { IMAGE_MODEL, multipartEdit, viaProxy } from '../requests';
import { UPSTREAM_API_KEY } from '../setup';
import { distribution, formatMb, MB } from '../stats';
import { gatewayWays, startOtherGateways, variantsOf, type Served } from '../ways';
import { roundsRows } from './roundsRows';

const WIDTH = 2560;
const HEIGHT = 2048;

/** An RGBA noise PNG: incompressible, so 2560x2048 is about 20 MB. */
function noisePng(): Promise<Buffer> {
  return sharp(randomBytes(WIDTH * HEIGHT * 4), {
    raw: { width: WIDTH, height: HEIGHT, channels: 4 },
  })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/**
 * An edit upload (API-key transport): a ~20 MB PNG plus a mask of the same size as multipart, the
 * same bytes to every way (direct, floor, installed, gallery off, baseline) in interleaved rounds,
 * the gateway idle before each call; the answer is a 2560x2048 PNG. The memory rule is the issue's
 * (300 MB + 1.5 x bytes in flight), applied by analogy to upload plus answer.
 */
export async function editCases(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.wants('edit.')) return [];
  const [image, mask] = await Promise.all([noisePng(), noisePng()]);
  const { contentType, body } = multipartEdit(
    {
      model: IMAGE_MODEL,
      prompt: 'a benchmark of noise',
      size: `${WIDTH}x${HEIGHT}`,
      quality: 'medium',
      output_format: 'png',
    },
    [
      { name: 'image', filename: 'image.png', bytes: image },
      { name: 'mask', filename: 'mask.png', bytes: mask },
    ],
  );
  const target = (url: string, key: string): Target => ({
    url,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': contentType,
      accept: 'application/json',
    },
    body,
  });
  const direct = target(`${ctx.sim.url}/v1/images/edits`, UPSTREAM_API_KEY);
  const through = (served: Served) =>
    target(`${served.gateway.url}/v1/images/edits`, served.setup.keys.apiKey);
  let b64Bytes = 0;
  const others = await startOtherGateways(ctx, { ownIsFresh: true });
  let measured;
  try {
    // The installed way is a fresh gateway child, so its peak RSS is this case's alone.
    measured = await ctx.withPeak(
      async () => {
        const ways = gatewayWays(ctx, others);
        const variants = variantsOf(ways, (way, served) => {
          const t = served
            ? through(served)
            : way === 'floor'
              ? viaProxy(ctx.sim, ctx.proxy.url, direct)
              : direct;
          return async () => (await timedPost(t)).ms;
        });
        b64Bytes = await checkImagesJson(
          (await timedPost(through(ways.installed), true)).body!,
          WIDTH,
          HEIGHT,
        );
        await warmUp(variants, ctx.plan.warmup);
        return runBlocks(variants, ctx.plan.edit.rounds, ctx.plan.edit.block, {
          settleEachCall: true,
        });
      },
      { fresh: true, label: 'edit' },
    );
  } finally {
    await others.close();
  }
  const { value: result, memory } = measured;
  const inFlight = body.length + b64Bytes;
  const limit = 300 * MB + 1.5 * inFlight;
  const label = `edit ${WIDTH}x${HEIGHT}: ${formatMb(image.length)} PNG + ${formatMb(mask.length)} mask`;
  const details = {
    ...ctx.plan.edit,
    imageBytes: image.length,
    maskBytes: mask.length,
    uploadBytes: body.length,
    b64Bytes,
  };
  return [
    ...roundsRows(ctx, { id: 'edit.time', label: `${label}, time`, result, details }),
    {
      id: 'edit.rss',
      label: `${label}, gateway peak RSS`,
      unit: 'bytes',
      direct: null,
      through: distribution([memory.peakBytes]),
      addedMs: null,
      ratio: null,
      target: `<= ${formatMb(limit)} (300 + 1.5 x ${formatMb(inFlight)}, by analogy)`,
      pass: memory.peakBytes <= limit,
      details: { ...details, gatewayMemory: memory },
    },
  ];
}
