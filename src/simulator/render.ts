import sharp from 'sharp';
import type { OutputFormat } from '../shared/imageParams';
import { createRandom, noiseBytes, seedFrom } from './prng';

/** An uncompressed frame: 3 channels (RGB) or 4 (RGBA), 8 bits each, rows top to bottom. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

export type Payload = 'art' | 'noise';

type Rgb = [number, number, number];

function hslToRgb(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): number => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/**
 * Draws the frame for a prompt: a four-corner gradient with translucent discs and bars on top.
 * Shapes live in coordinates relative to the frame, so one prompt looks alike at every size.
 */
export function renderFrame(
  seedText: string,
  width: number,
  height: number,
  payload: Payload,
): RawImage {
  const seed = seedFrom(seedText);
  if (payload === 'noise') {
    return { data: noiseBytes(seed, width * height * 3), width, height, channels: 3 };
  }
  const rand = createRandom(seed);
  const hue = rand() * 360;
  const colour = (): Rgb =>
    hslToRgb((hue + rand() * 150) % 360, 0.45 + rand() * 0.45, 0.3 + rand() * 0.45);
  const data = Buffer.allocUnsafe(width * height * 3);
  paintGradient(data, width, height, [colour(), colour(), colour(), colour()]);

  const shapes = 6 + Math.floor(rand() * 6);
  const unit = Math.min(width, height);
  for (let i = 0; i < shapes; i += 1) {
    const cx = rand() * width;
    const cy = rand() * height;
    const alpha = 0.35 + rand() * 0.5;
    if (rand() < 0.6) {
      paintDisc(data, width, height, cx, cy, unit * (0.05 + rand() * 0.25), colour(), alpha);
    } else {
      const w = width * (0.05 + rand() * 0.4);
      const h = height * (0.03 + rand() * 0.2);
      paintRect(data, width, height, cx - w / 2, cy - h / 2, w, h, colour(), alpha);
    }
  }
  return { data, width, height, channels: 3 };
}

function paintGradient(data: Buffer, width: number, height: number, corners: Rgb[]): void {
  const [tl, tr, bl, br] = corners as [Rgb, Rgb, Rgb, Rgb];
  for (let y = 0; y < height; y += 1) {
    const t = height > 1 ? y / (height - 1) : 0;
    const left = [0, 1, 2].map((c) => tl[c]! + (bl[c]! - tl[c]!) * t) as Rgb;
    const right = [0, 1, 2].map((c) => tr[c]! + (br[c]! - tr[c]!) * t) as Rgb;
    let offset = y * width * 3;
    for (let x = 0; x < width; x += 1) {
      const s = width > 1 ? x / (width - 1) : 0;
      data[offset] = left[0] + (right[0] - left[0]) * s;
      data[offset + 1] = left[1] + (right[1] - left[1]) * s;
      data[offset + 2] = left[2] + (right[2] - left[2]) * s;
      offset += 3;
    }
  }
}

function blendPixel(data: Buffer, offset: number, rgb: Rgb, alpha: number): void {
  data[offset] = data[offset]! + (rgb[0] - data[offset]!) * alpha;
  data[offset + 1] = data[offset + 1]! + (rgb[1] - data[offset + 1]!) * alpha;
  data[offset + 2] = data[offset + 2]! + (rgb[2] - data[offset + 2]!) * alpha;
}

function paintDisc(
  data: Buffer,
  width: number,
  height: number,
  cx: number,
  cy: number,
  r: number,
  rgb: Rgb,
  alpha: number,
): void {
  const y0 = Math.max(0, Math.floor(cy - r));
  const y1 = Math.min(height - 1, Math.ceil(cy + r));
  for (let y = y0; y <= y1; y += 1) {
    const dy = y - cy;
    const half = Math.sqrt(Math.max(0, r * r - dy * dy));
    const x0 = Math.max(0, Math.floor(cx - half));
    const x1 = Math.min(width - 1, Math.ceil(cx + half));
    for (let x = x0; x <= x1; x += 1) blendPixel(data, (y * width + x) * 3, rgb, alpha);
  }
}

function paintRect(
  data: Buffer,
  width: number,
  height: number,
  left: number,
  top: number,
  w: number,
  h: number,
  rgb: Rgb,
  alpha: number,
): void {
  const x0 = Math.max(0, Math.floor(left));
  const x1 = Math.min(width - 1, Math.floor(left + w));
  const y0 = Math.max(0, Math.floor(top));
  const y1 = Math.min(height - 1, Math.floor(top + h));
  for (let y = y0; y <= y1; y += 1) {
    for (let x = x0; x <= x1; x += 1) blendPixel(data, (y * width + x) * 3, rgb, alpha);
  }
}

/**
 * Encodes a frame. `compression` is the API's output_compression (0-100, default 100), used as the
 * encoder quality and only for jpeg and webp, as upstream. Noise frames use fast zlib: they do not compress
 * anyway, and benchmarks want big bodies, not slow encodes.
 */
export async function encodeFrame(
  frame: RawImage,
  format: OutputFormat,
  compression: number | undefined,
  payload: Payload,
): Promise<Buffer> {
  const { data, width, height, channels } = frame;
  const image = sharp(data, { raw: { width, height, channels } });
  const quality = Math.max(1, Math.min(100, compression ?? 100));
  switch (format) {
    case 'png':
      return image.png({ compressionLevel: payload === 'noise' ? 1 : 6 }).toBuffer();
    case 'jpeg':
      return image.flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
    case 'webp':
      return image.webp({ quality, effort: 2 }).toBuffer();
  }
}
