import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { ImageRecord } from '../../../shared/admin';
import { exportImagesZip, zipName } from './exportZip';
import { readPngText } from './pngText';

const record = (over: Partial<ImageRecord>): ImageRecord => ({
  id: 'img_1',
  requestId: 'req_1',
  index: 0,
  createdAt: Date.UTC(2026, 10, 24, 12, 0, 0),
  source: 'studio',
  endpoint: '/images/edits',
  prompt: 'A lighthouse — in fog',
  revisedPrompt: null,
  model: 'image-model-2',
  requestedSize: '1024x1024',
  deliveredSize: '1024x1024',
  quality: 'low',
  outputFormat: 'png',
  outputCompression: null,
  background: null,
  moderation: null,
  width: 8,
  height: 8,
  bytes: 100,
  inputTokens: 10,
  outputTokens: 20,
  totalTokens: 30,
  costMicros: 42_000,
  favourite: false,
  rejected: false,
  parentId: 'img_0',
  hasMask: true,
  apiKeyId: null,
  fallbackStep: null,
  ...over,
});

const solid = (format: 'png' | 'jpeg') =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366aa' } })
    .toFormat(format)
    .toBuffer();

describe('exportImagesZip', () => {
  it('writes each image with its sidecar JSON, its mask, and the metadata inside PNGs', async () => {
    const png = await solid('png');
    const jpeg = await solid('jpeg');
    const files: Record<string, Buffer> = { img_1: png, img_2: jpeg, img_3: png };
    const images = [
      record({}),
      record({
        id: 'img_2',
        outputFormat: 'jpeg',
        hasMask: false,
        apiKeyId: 'key_9',
        source: 'api',
      }),
      // Same second and index as img_1: a second name, not an overwrite.
      record({ id: 'img_3', hasMask: false }),
    ];
    const progress: number[] = [];
    const zip = await exportImagesZip(
      images,
      {
        imageFile: async (id) =>
          new Blob([new Uint8Array(files[id]!)], {
            type: id === 'img_2' ? 'image/jpeg' : 'image/png',
          }),
        maskFile: async () => new Blob([new Uint8Array(png)], { type: 'image/png' }),
        keyName: (id) => (id === 'key_9' ? 'batch app' : null),
      },
      (done) => progress.push(done),
    );
    expect(progress).toEqual([1, 2, 3]);
    const entries = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const names = Object.keys(entries).sort();
    expect(names).toHaveLength(7);
    const pngName = names.find((n) => n.endsWith('-1.png'))!;
    const stem = pngName.replace(/\.png$/, '');
    expect(names).toEqual(
      expect.arrayContaining([
        `${stem}.json`,
        `${stem}.mask.png`,
        `${stem}-3.png`,
        `${stem}-3.json`,
      ]),
    );

    const sidecar = JSON.parse(new TextDecoder().decode(entries[`${stem}.json`])) as Record<
      string,
      unknown
    >;
    expect(sidecar).toMatchObject({
      id: 'img_1',
      prompt: 'A lighthouse — in fog',
      parameters: { model: 'image-model-2', requestedSize: '1024x1024', quality: 'low' },
      cost: { usd: 0.042, micros: 42_000 },
      mask: { file: `${stem}.mask.png`, url: '/api/admin/images/img_1/mask' },
    });
    const text = readPngText(entries[pngName]!);
    expect(text.every((t) => t.crcOk)).toBe(true);
    const inside = JSON.parse(text.find((t) => t.keyword === 'atelier')!.text) as unknown;
    expect(inside).toEqual(sidecar);
    expect(text.find((t) => t.keyword === 'Description')?.text).toBe('A lighthouse — in fog');
    // The mask is the mask's bytes; the JPEG is as it was, with its own sidecar.
    expect(Buffer.from(entries[`${stem}.mask.png`]!).equals(png)).toBe(true);
    const jpegName = names.find((n) => n.endsWith('.jpg'))!;
    expect(Buffer.from(entries[jpegName]!).equals(jpeg)).toBe(true);
    expect(jpegName).toBe(`${stem}-2.jpg`);
    const jpegMeta = JSON.parse(
      new TextDecoder().decode(entries[jpegName.replace(/\.jpg$/, '.json')]),
    ) as Record<string, unknown>;
    expect(jpegMeta).toMatchObject({ apiKey: { id: 'key_9', name: 'batch app' }, mask: null });
  });

  it('names the archive by time and count', () => {
    expect(zipName(1, new Date(2026, 10, 24, 9, 5))).toBe(
      'atelier-export-20261124-0905-1-image.zip',
    );
    expect(zipName(12, new Date(2026, 0, 2, 23, 59))).toBe(
      'atelier-export-20260102-2359-12-images.zip',
    );
  });
});
