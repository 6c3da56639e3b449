import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { checkImagesJson } from '../check';
import { alternate, type BenchContext } from '../context';
import { timedPost, type Target } from '../http';
import { timeRow, type Row } from '../report';
import { IMAGE_MODEL, multipartEdit } from '../requests';
import { UPSTREAM_API_KEY } from '../setup';
import { distribution, formatMb, MB } from '../stats';

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
 * same bytes to both sides; the answer is a 2560x2048 PNG. The memory rule is the issue's
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
  // A function: the case gets a fresh gateway child, on a new port.
  const through = () => target(`${ctx.gateway.url}/v1/images/edits`, ctx.setup.keys.apiKey);
  let b64Bytes = 0;
  const { value, memory } = await ctx.withPeak(
    () =>
      alternate(ctx, {
        ...ctx.plan.edit,
        direct: (keep) => timedPost(direct, keep),
        through: (keep) => timedPost(through(), keep),
        check: async (t) => {
          b64Bytes = await checkImagesJson(t.body!, WIDTH, HEIGHT);
        },
      }),
    { fresh: true, label: 'edit' },
  );
  const d = distribution(value.direct.map((s) => s.ms));
  const t = distribution(value.through.map((s) => s.ms));
  const inFlight = body.length + b64Bytes;
  const limit = 300 * MB + 1.5 * inFlight;
  const label = `edit ${WIDTH}x${HEIGHT}: ${formatMb(image.length)} PNG + ${formatMb(mask.length)} mask`;
  ctx.log(`${label}: direct ${d.p50.toFixed(0)} ms, through ${t.p50.toFixed(0)} ms`);
  const details = {
    imageBytes: image.length,
    maskBytes: mask.length,
    uploadBytes: body.length,
    b64Bytes,
    gatewayCpuMsPerCall: distribution(value.throughCpuMs).p50,
    settleMs: distribution(value.settleMs).p50,
  };
  return [
    timeRow({ id: 'edit.time', label: `${label}, time`, direct: d, through: t, details }),
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
