import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { crc32, itxtChunk, PngError, readPngText, textChunk, withPngChunks } from './pngText';

async function png(): Promise<Uint8Array> {
  const buffer = await sharp({
    create: { width: 8, height: 4, channels: 4, background: { r: 200, g: 10, b: 90, alpha: 1 } },
  })
    .png()
    .toBuffer();
  return new Uint8Array(buffer);
}

describe('crc32', () => {
  it('matches the published check values', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    // The CRC every PNG's IEND chunk carries.
    expect(crc32(new TextEncoder().encode('IEND'))).toBe(0xae426082);
    expect(crc32(new TextEncoder().encode('The quick brown fox jumps over the lazy dog'))).toBe(
      0x414fa339,
    );
    expect(crc32(new Uint8Array())).toBe(0);
  });
});

describe('PNG text chunks', () => {
  it('adds iTXt (Unicode) and tEXt chunks after IHDR, which readers find with valid CRCs', async () => {
    const original = await png();
    const json = JSON.stringify({ prompt: 'Leuchtturm im Nebel — 灯台, 🌊', cost: 0.042 });
    const out = withPngChunks(original, [
      itxtChunk('atelier', json),
      textChunk('Software', 'Atelier'),
    ]);
    expect(readPngText(out)).toEqual([
      { type: 'iTXt', keyword: 'atelier', text: json, crcOk: true },
      { type: 'tEXt', keyword: 'Software', text: 'Atelier', crcOk: true },
    ]);
    // The pixels are untouched, and an independent decoder reads the file and the text.
    const { data } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
    const { data: before } = await sharp(original).raw().toBuffer({ resolveWithObject: true });
    expect(Buffer.compare(data, before)).toBe(0);
    const meta = await sharp(out).metadata();
    expect(meta.comments).toEqual(
      expect.arrayContaining([{ keyword: 'Software', text: 'Atelier' }]),
    );
  });

  it('notices a damaged chunk by its CRC', async () => {
    const out = withPngChunks(await png(), [textChunk('Title', 'Harbour')]);
    out[33 + 8 + 6]! ^= 0x01; // a byte of the text
    expect(readPngText(out)[0]?.crcOk).toBe(false);
  });

  it('refuses what is not a PNG and keywords PNG does not allow', () => {
    expect(() => withPngChunks(new Uint8Array(40), [])).toThrow(PngError);
    expect(() => itxtChunk('', 'x')).toThrow(PngError);
    expect(() => itxtChunk('a'.repeat(80), 'x')).toThrow(PngError);
    expect(() => itxtChunk(' lead', 'x')).toThrow(PngError);
    expect(() => textChunk('Title', 'not latin-1: 灯')).toThrow(PngError);
  });
});
