import sharp from 'sharp';
import type { RawImage } from './render';

/** Without a mask the whole picture is blended half and half: visibly edited, still recognisable. */
const UNMASKED_KEEP = 128;

async function decodeRgba(
  bytes: Buffer,
  width: number,
  height: number,
  nearest: boolean,
): Promise<Buffer> {
  let image = sharp(bytes);
  const meta = await image.metadata();
  if (meta.width !== width || meta.height !== height) {
    image = image.resize(width, height, { fit: 'fill', kernel: nearest ? 'nearest' : 'lanczos3' });
  }
  return image.toColourspace('srgb').ensureAlpha().raw().toBuffer();
}

/**
 * Composes an edit: out = original * a + generated * (1 - a), with `a` the mask's alpha (0..1).
 * Where the mask is opaque the original pixel comes through bit for bit, so only the transparent
 * region changes, as the mask contract says.
 */
export async function composeEdit(
  generated: RawImage,
  input: Buffer,
  mask: Buffer | undefined,
): Promise<RawImage> {
  const { width, height } = generated;
  const original = await decodeRgba(input, width, height, false);
  const keep = mask ? await decodeRgba(mask, width, height, true) : undefined;
  const out = Buffer.allocUnsafe(width * height * 4);
  const gen = generated.data;
  const genChannels = generated.channels;
  let opaque = true;
  for (let p = 0, o = 0, g = 0; p < width * height; p += 1, o += 4, g += genChannels) {
    const a = keep ? keep[o + 3]! : UNMASKED_KEEP;
    const b = 255 - a;
    out[o] = Math.round((original[o]! * a + gen[g]! * b) / 255);
    out[o + 1] = Math.round((original[o + 1]! * a + gen[g + 1]! * b) / 255);
    out[o + 2] = Math.round((original[o + 2]! * a + gen[g + 2]! * b) / 255);
    const alpha = Math.round((original[o + 3]! * a + 255 * b) / 255);
    out[o + 3] = alpha;
    if (alpha !== 255) opaque = false;
  }
  return opaque ? dropAlpha(out, width, height) : { data: out, width, height, channels: 4 };
}

/** An opaque result is stored as RGB, like upstream's opaque images. */
function dropAlpha(rgba: Buffer, width: number, height: number): RawImage {
  const rgb = Buffer.allocUnsafe(width * height * 3);
  for (let p = 0, s = 0, d = 0; p < width * height; p += 1, s += 4, d += 3) {
    rgb[d] = rgba[s]!;
    rgb[d + 1] = rgba[s + 1]!;
    rgb[d + 2] = rgba[s + 2]!;
  }
  return { data: rgb, width, height, channels: 3 };
}
