/**
 * The difference of two images, pixel by pixel: |a - b| per channel, three times stronger so small
 * changes show, over an opaque black (same = black). The second image is drawn at the first's
 * size when they differ. `changedShare` counts pixels where any channel moved by more than a
 * little (compression noise is not a change).
 */
export interface Difference {
  url: string;
  changedShare: number;
  width: number;
  height: number;
}

/** A channel moving by this much or less is noise, not a change. */
const NOISE = 8;
const GAIN = 3;

export function diffPixels(
  a: Uint8ClampedArray,
  b: Uint8ClampedArray,
  out: Uint8ClampedArray,
): number {
  let changed = 0;
  for (let i = 0; i < a.length; i += 4) {
    const dr = Math.abs(a[i]! - b[i]!);
    const dg = Math.abs(a[i + 1]! - b[i + 1]!);
    const db = Math.abs(a[i + 2]! - b[i + 2]!);
    const da = Math.abs(a[i + 3]! - b[i + 3]!);
    if (dr > NOISE || dg > NOISE || db > NOISE || da > NOISE) changed++;
    out[i] = Math.min(255, dr * GAIN);
    out[i + 1] = Math.min(255, dg * GAIN);
    out[i + 2] = Math.min(255, db * GAIN);
    out[i + 3] = 255;
  }
  return changed;
}

async function bitmap(url: string): Promise<ImageBitmap> {
  const img = new Image();
  img.src = url;
  await img.decode();
  return createImageBitmap(img);
}

export async function differenceOf(aUrl: string, bUrl: string): Promise<Difference> {
  const [a, b] = await Promise.all([bitmap(aUrl), bitmap(bUrl)]);
  const { width, height } = a;
  const read = (image: ImageBitmap) => {
    const canvas = new OffscreenCanvas(width, height);
    const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
    ctx.drawImage(image, 0, 0, width, height);
    return ctx.getImageData(0, 0, width, height);
  };
  const pa = read(a);
  const pb = read(b);
  a.close();
  b.close();
  const out = new ImageData(width, height);
  const changed = diffPixels(pa.data, pb.data, out.data);
  const canvas = new OffscreenCanvas(width, height);
  canvas.getContext('2d')!.putImageData(out, 0, 0);
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  return {
    url: URL.createObjectURL(blob),
    changedShare: changed / (width * height),
    width,
    height,
  };
}
