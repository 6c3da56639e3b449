import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  inspectBase64Head,
  inspectBase64Prefix,
  inspectImage,
  type ImageInfo,
} from './imageInspect';

// Fixtures are made by sharp here; the module under test reads header bytes only.
const W = 37;
const H = 23;

function raw(channels: 3 | 4, alpha = 1) {
  return sharp({
    create: { width: W, height: H, channels, background: { r: 200, g: 80, b: 20, alpha } },
  });
}

/** Inserts APPn segments of `size` bytes each right after SOI, pushing SOF far from the start. */
function spliceAppSegments(jpeg: Buffer, count: number, size: number): Buffer {
  const segments: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const body = Buffer.alloc(size - 2, 0x41 + i);
    if (i === 0) body.write('Exif\0\0', 0, 'latin1');
    const header = Buffer.from([0xff, 0xe1 + (i % 14), 0, 0]);
    header.writeUInt16BE(size, 2);
    segments.push(header, body);
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

function chunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  for (let offset = 8; offset + 8 <= png.length;) {
    const length = png.readUInt32BE(offset);
    types.push(png.toString('latin1', offset + 4, offset + 8));
    offset += 12 + length;
  }
  return types;
}

const f = {} as Record<
  | 'pngRgb'
  | 'pngRgba'
  | 'pngPaletteTrns'
  | 'pngPaletteOpaque'
  | 'pngGrey'
  | 'pngGreyAlpha'
  | 'jpeg'
  | 'jpegProgressive'
  | 'jpegExif'
  | 'jpegBigApp'
  | 'webpLossy'
  | 'webpLossless'
  | 'webpLosslessAlpha'
  | 'webpLossyAlpha',
  Buffer
>;

beforeAll(async () => {
  f.pngRgb = await raw(3).png().toBuffer();
  f.pngRgba = await raw(4, 0.5).png().toBuffer();
  f.pngPaletteTrns = await raw(4, 0.5).png({ palette: true }).toBuffer();
  f.pngPaletteOpaque = await raw(3).png({ palette: true }).toBuffer();
  f.pngGrey = await raw(3).toColourspace('b-w').png().toBuffer();
  f.pngGreyAlpha = await raw(4, 0.5).toColourspace('b-w').png().toBuffer();
  f.jpeg = await raw(3).jpeg().toBuffer();
  f.jpegProgressive = await raw(3).jpeg({ progressive: true }).toBuffer();
  f.jpegExif = await raw(3)
    .jpeg()
    .withExif({ IFD0: { ImageDescription: 'x'.repeat(50_000), Software: 'atelier-test' } })
    .toBuffer();
  f.jpegBigApp = spliceAppSegments(f.jpeg, 4, 60_000);
  f.webpLossy = await raw(3).webp({ quality: 80 }).toBuffer();
  f.webpLossless = await raw(3).webp({ lossless: true }).toBuffer();
  f.webpLosslessAlpha = await raw(4, 0.5).webp({ lossless: true }).toBuffer();
  f.webpLossyAlpha = await raw(4, 0.5).webp({ quality: 80 }).toBuffer();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const info = (format: ImageInfo['format'], hasAlpha: boolean): ImageInfo => ({
  format,
  width: W,
  height: H,
  hasAlpha,
});

describe('inspectImage: PNG', () => {
  it('RGB has no alpha; RGBA (colour type 6) has', () => {
    expect(f.pngRgb[25]).toBe(2);
    expect(inspectImage(f.pngRgb)).toEqual(info('png', false));
    expect(f.pngRgba[25]).toBe(6);
    expect(inspectImage(f.pngRgba)).toEqual(info('png', true));
  });

  it('palette with a tRNS chunk has alpha; palette without tRNS has not', () => {
    expect(f.pngPaletteTrns[25]).toBe(3);
    expect(chunkTypes(f.pngPaletteTrns)).toContain('tRNS');
    expect(inspectImage(f.pngPaletteTrns)).toEqual(info('png', true));
    expect(f.pngPaletteOpaque[25]).toBe(3);
    expect(chunkTypes(f.pngPaletteOpaque)).not.toContain('tRNS');
    expect(inspectImage(f.pngPaletteOpaque)).toEqual(info('png', false));
  });

  it('greyscale (colour type 0) has no alpha; grey + alpha (colour type 4) has', () => {
    expect(f.pngGrey[25]).toBe(0);
    expect(inspectImage(f.pngGrey)).toEqual(info('png', false));
    expect(f.pngGreyAlpha[25]).toBe(4);
    expect(inspectImage(f.pngGreyAlpha)).toEqual(info('png', true));
  });

  it('a tRNS chunk after IDAT does not count', () => {
    const idat = f.pngRgb.indexOf('IDAT') - 4;
    const trns = Buffer.from([0, 0, 0, 6, ...Buffer.from('tRNS'), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const moved = Buffer.concat([
      f.pngRgb.subarray(0, idat),
      f.pngRgb.subarray(idat, -12),
      trns,
      f.pngRgb.subarray(-12),
    ]);
    expect(inspectImage(moved)).toEqual(info('png', false));
    const before = Buffer.concat([f.pngRgb.subarray(0, idat), trns, f.pngRgb.subarray(idat)]);
    expect(inspectImage(before)).toEqual(info('png', true));
  });
});

describe('inspectImage: JPEG', () => {
  it('baseline (SOF0) and progressive (SOF2)', () => {
    expect(inspectImage(f.jpeg)).toEqual(info('jpeg', false));
    expect(f.jpegProgressive.includes(Buffer.from([0xff, 0xc2]))).toBe(true);
    expect(inspectImage(f.jpegProgressive)).toEqual(info('jpeg', false));
  });

  it('with a large EXIF block written by sharp', () => {
    expect(f.jpegExif.length).toBeGreaterThan(50_000);
    expect(inspectImage(f.jpegExif)).toEqual(info('jpeg', false));
  });

  it('with 240 KB of APP segments before SOF', () => {
    expect(inspectImage(f.jpegBigApp)).toEqual(info('jpeg', false));
  });

  it('skips DHT (C4) and other segments that share the SOF range', () => {
    // A fake DHT segment whose bytes would read as 1x1 if it were taken for a frame header.
    const dht = Buffer.from([0xff, 0xc4, 0x00, 0x08, 0x08, 0x00, 0x01, 0x00, 0x01, 0x03]);
    const spliced = Buffer.concat([f.jpeg.subarray(0, 2), dht, f.jpeg.subarray(2)]);
    expect(inspectImage(spliced)).toEqual(info('jpeg', false));
  });

  it('accepts fill bytes before a marker', () => {
    const filled = Buffer.concat([
      f.jpeg.subarray(0, 2),
      Buffer.from([0xff, 0xff]),
      f.jpeg.subarray(2),
    ]);
    expect(inspectImage(filled)).toEqual(info('jpeg', false));
  });
});

describe('inspectImage: WebP', () => {
  it("lossy ('VP8 ') has no alpha", () => {
    expect(f.webpLossy.toString('latin1', 12, 16)).toBe('VP8 ');
    expect(inspectImage(f.webpLossy)).toEqual(info('webp', false));
  });

  it("lossless ('VP8L') reads alpha_is_used", () => {
    expect(f.webpLossless.toString('latin1', 12, 16)).toBe('VP8L');
    expect(inspectImage(f.webpLossless)).toEqual(info('webp', false));
    const chunk = f.webpLosslessAlpha.toString('latin1', 12, 16);
    expect(['VP8L', 'VP8X']).toContain(chunk);
    expect(inspectImage(f.webpLosslessAlpha)).toEqual(info('webp', true));
  });

  it("lossy with alpha ('VP8X' + ALPH) has alpha", () => {
    expect(f.webpLossyAlpha.toString('latin1', 12, 16)).toBe('VP8X');
    expect(inspectImage(f.webpLossyAlpha)).toEqual(info('webp', true));
  });

  it('VP8X without the alpha flag has no alpha; 24-bit canvas sizes', () => {
    const header = Buffer.alloc(30);
    header.write('RIFF', 0, 'latin1');
    header.writeUInt32LE(22, 4);
    header.write('WEBPVP8X', 8, 'latin1');
    header.writeUInt32LE(10, 16);
    header[20] = 0x08; // EXIF flag only
    header.writeUIntLE(70_000 - 1, 24, 3);
    header.writeUIntLE(3 - 1, 27, 3);
    expect(inspectImage(header)).toEqual({
      format: 'webp',
      width: 70_000,
      height: 3,
      hasAlpha: false,
    });
  });
});

describe('inspectImage: truncated and garbage input', () => {
  it('every prefix of every fixture returns null or the right answer, never throws', () => {
    for (const [name, bytes] of Object.entries(f)) {
      const full = inspectImage(bytes);
      expect(full, name).not.toBeNull();
      for (let cut = 0; cut < Math.min(bytes.length, 400); cut++) {
        const result = inspectImage(bytes.subarray(0, cut));
        if (result !== null) expect(result, `${name} cut at ${cut}`).toEqual(full);
      }
    }
  });

  it('headers cut short give null', () => {
    expect(inspectImage(f.pngRgb.subarray(0, 30))).toBeNull();
    expect(inspectImage(f.jpeg.subarray(0, 20))).toBeNull();
    expect(inspectImage(f.jpegBigApp.subarray(0, 100_000))).toBeNull();
    expect(inspectImage(f.webpLossy.subarray(0, 28))).toBeNull();
    expect(inspectImage(Buffer.alloc(0))).toBeNull();
  });

  it('other formats and garbage give null', () => {
    expect(inspectImage(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'))).toBeNull();
    expect(inspectImage(Buffer.from('not an image at all, just text'))).toBeNull();
    expect(inspectImage(Buffer.alloc(100, 0xff))).toBeNull();
    expect(inspectImage(Buffer.from('RIFF\0\0\0\0WAVEfmt '))).toBeNull();
  });

  it('damaged headers give null', () => {
    const zeroWidth = Buffer.from(f.pngRgb);
    zeroWidth.writeUInt32BE(0, 16);
    expect(inspectImage(zeroWidth)).toBeNull();
    const badLength = Buffer.concat([
      f.jpeg.subarray(0, 2),
      Buffer.from([0xff, 0xe0, 0xff, 0xff, 0x00]),
    ]);
    expect(inspectImage(badLength)).toBeNull();
    const scanFirst = Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 0, 0, 0, 0, 0, 0]);
    expect(inspectImage(scanFirst)).toBeNull();
  });

  it('random corruption of header bytes never throws', () => {
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (const bytes of Object.values(f)) {
      for (let round = 0; round < 200; round++) {
        const copy = Buffer.from(bytes.subarray(0, 256));
        for (let k = 0; k < 4; k++) copy[next() % copy.length] = next() % 256;
        expect(() => inspectImage(copy)).not.toThrow();
      }
    }
  });
});

/** Lengths of the base64 texts handed to Buffer.from(text, 'base64'). */
function base64Decodes(calls: unknown[][]): number[] {
  return calls.filter((c) => c[1] === 'base64').map((c) => String(c[0]).length);
}

describe('inspectBase64Prefix', () => {
  it('matches inspectImage for every fixture, from a string or a Buffer', () => {
    for (const [name, bytes] of Object.entries(f)) {
      const text = bytes.toString('base64');
      expect(inspectBase64Prefix(text), name).toEqual(inspectImage(bytes));
      expect(inspectBase64Prefix(Buffer.from(text, 'latin1')), name).toEqual(inspectImage(bytes));
    }
  });

  it('decodes only the first window when the header is there', () => {
    // A 33 MB-class image: a real header followed by a long tail of base64 text.
    const text = f.pngRgba.toString('base64') + 'A'.repeat(44_000_000);
    const from = vi.spyOn(Buffer, 'from');
    expect(inspectBase64Prefix(text)).toEqual(info('png', true));
    const decoded = base64Decodes(from.mock.calls as unknown[][]);
    expect(decoded.length).toBe(1);
    expect(Math.max(...decoded)).toBeLessThanOrEqual(1024);
  });

  it('looks at the head of an arriving image by the same first window', () => {
    // The first socket piece of a small image: a megabyte, of which a kilobyte tells the header.
    const head = Buffer.from(f.pngRgb.toString('base64') + 'A'.repeat(1024 * 1024), 'latin1');
    const from = vi.spyOn(Buffer, 'from');
    expect(inspectBase64Head(head)).toEqual(info('png', false));
    const decoded = base64Decodes(from.mock.calls as unknown[][]);
    expect(decoded).toEqual([1024]);
  });

  it('decodes further when SOF sits behind large APP segments, but not the whole', () => {
    const text = f.jpegBigApp.toString('base64') + 'A'.repeat(44_000_000);
    const from = vi.spyOn(Buffer, 'from');
    expect(inspectBase64Prefix(text)).toEqual(info('jpeg', false));
    const decoded = base64Decodes(from.mock.calls as unknown[][]);
    expect(decoded.length).toBeGreaterThan(1);
    expect(Math.max(...decoded)).toBeLessThan(text.length / 10);
  });

  it('truncated or garbage base64 gives null', () => {
    expect(inspectBase64Prefix(f.jpegBigApp.toString('base64').slice(0, 200_000))).toBeNull();
    expect(inspectBase64Prefix(f.pngRgb.toString('base64').slice(0, 20))).toBeNull();
    expect(inspectBase64Prefix('')).toBeNull();
    expect(inspectBase64Prefix('!!!! not base64 ????')).toBeNull();
    expect(inspectBase64Prefix(Buffer.from('R0lGODlhAQABAAAAACw=', 'latin1'))).toBeNull();
  });
});
