import zlib from 'node:zlib';
import fc from 'fast-check';
import sharp, { type Sharp } from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../shared/imageParams';
import { ApiError } from '../core/errors';
import type { InputImage } from '../upstream/types';
import { checkDecodable, type EditRequest } from './editRules';
import type { ImageOptions } from './imageOptions';

const WIDTH = 48;
const HEIGHT = 40;

/** Noise, so every codec has real work on every row, as a sharp pipeline to encode. */
function noise(channels: 3 | 4): Sharp {
  const raw = Buffer.alloc(WIDTH * HEIGHT * channels);
  for (let i = 0; i < raw.length; i += 1) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width: WIDTH, height: HEIGHT, channels } });
}

const encoders: Record<string, () => Promise<Buffer>> = {
  'PNG, RGBA': () => noise(4).png().toBuffer(),
  'PNG, interlaced': () => noise(3).png({ progressive: true }).toBuffer(),
  'PNG, palette': () => noise(3).png({ palette: true, colours: 64 }).toBuffer(),
  'PNG, 16 bits': () => noise(3).toColourspace('rgb16').png().toBuffer(),
  JPEG: () => noise(3).jpeg().toBuffer(),
  'JPEG, progressive': () => noise(3).jpeg({ progressive: true }).toBuffer(),
  WebP: () => noise(4).webp().toBuffer(),
  'WebP, lossless': () => noise(4).webp({ lossless: true }).toBuffer(),
};

const files: Record<string, Buffer> = {};
beforeAll(async () => {
  for (const [name, encode] of Object.entries(encoders)) files[name] = await encode();
});

const formatOf = (name: string): InputImage['format'] =>
  name.startsWith('PNG') ? 'png' : name.startsWith('JPEG') ? 'jpeg' : 'webp';

function editOf(name: string, bytes: Buffer): EditRequest {
  const image: InputImage = {
    bytes,
    format: formatOf(name),
    width: WIDTH,
    height: HEIGHT,
    hasAlpha: true,
    filename: 'in',
  };
  return { options: {} as ImageOptions, images: [image] };
}

/** What checkDecodable says of one file: null when it passes, else the 400's message. */
async function verdict(name: string, bytes: Buffer): Promise<string | null> {
  try {
    await checkDecodable(editOf(name, bytes), () => 'image');
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, param: 'image', code: 'invalid_image' });
    return (error as ApiError).message;
  }
}

/**
 * The oracle: a full decode into pixels. (Not `stats()`, the check this one replaced: it passes
 * an interlaced PNG with damaged pixel data that a decode into pixels refuses, a case this test
 * found.)
 */
async function decodesWhole(bytes: Buffer): Promise<boolean> {
  return sharp(bytes, { limitInputPixels: LIMITS.maxInputPixels, failOn: 'truncated' })
    .raw()
    .toBuffer()
    .then(
      () => true,
      () => false,
    );
}

/** A PNG's chunks: where each starts, its type and data length. */
function pngChunks(png: Buffer): Array<{ at: number; type: string; length: number }> {
  const chunks = [];
  for (let at = 8; at + 12 <= png.length;) {
    const length = png.readUInt32BE(at);
    chunks.push({ at, type: png.toString('latin1', at + 4, at + 8), length });
    at += 12 + length;
  }
  return chunks;
}

type Chunk = ReturnType<typeof pngChunks>[number];

/** Writes `chunk`'s CRC for its bytes as they are now. */
function fixCrc(png: Buffer, chunk: Chunk): void {
  const end = chunk.at + 8 + chunk.length;
  png.writeUInt32BE(zlib.crc32(png.subarray(chunk.at + 4, end)), end);
}

/** Damages the byte at `at` (xor `mask`); in a PNG the chunk's CRC is made right again. */
function damaged(name: string, file: Buffer, at: number, mask: number): Buffer {
  const bytes = Buffer.from(file);
  bytes[at] = bytes[at]! ^ mask;
  if (formatOf(name) !== 'png') return bytes;
  const chunk = pngChunks(bytes).find((c) => at >= c.at + 8 && at < c.at + 8 + c.length);
  if (chunk) fixCrc(bytes, chunk);
  return bytes;
}

describe('proving that an input image decodes (edits)', () => {
  it('passes every whole image, of every format the edit takes', async () => {
    for (const [name, bytes] of Object.entries(files))
      expect(await verdict(name, bytes)).toBeNull();
  });

  it('refuses a PNG whose last rows do not decode: it decodes to the end, not the start', async () => {
    const png = files['PNG, RGBA']!;
    const idat = pngChunks(png)
      .filter((c) => c.type === 'IDAT')
      .at(-1)!;
    // The end of the deflate stream (its last block and checksum) scrambled, the CRC made right.
    const bytes = Buffer.from(png);
    for (let at = idat.at + 8 + idat.length - 12; at < idat.at + 8 + idat.length; at += 1)
      bytes[at] = bytes[at]! ^ 0x5a;
    fixCrc(bytes, idat);
    expect(await decodesWhole(bytes)).toBe(false);
    expect(await verdict('PNG, RGBA', bytes)).toMatch(/image \('in'\) does not decode as PNG/);
  });

  it('refuses exactly what a full decode refuses, wherever a file is damaged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(encoders)),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fc.integer({ min: 1, max: 255 }),
        async (name, where, mask) => {
          const file = files[name]!;
          // Past the headers (the first fifth): structural damage is found before this check.
          const at = Math.floor(file.length * (0.2 + 0.8 * where));
          const bytes = damaged(name, file, at, mask);
          const refused = (await verdict(name, bytes)) !== null;
          expect(refused).toBe(!(await decodesWhole(bytes)));
        },
      ),
      { numRuns: 120 },
    );
  });
});
