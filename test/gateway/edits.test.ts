import { toFile } from 'openai';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeB64, diffByRegion, rectMask, testPicture } from '../support/images';
import { startTestGateway, usageRow, type TestGateway } from '../support/gateway';

let t: TestGateway;
let source: Buffer;
const W = 1024;
const H = 1024;
const hole = { left: 256, top: 384, width: 320, height: 200 };
let mask: Buffer;

beforeAll(async () => {
  t = await startTestGateway();
  source = await testPicture(W, H);
  mask = await rectMask(W, H, hole);
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/images/edits', () => {
  it('changes only the pixels inside the transparent region of the mask', async () => {
    const { data, request_id } = await t.client.images
      .edit({
        model: 'image-model-2',
        prompt: 'put a red balloon here',
        image: await toFile(source, 'scene.png', { type: 'image/png' }),
        mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
      })
      .withResponse();
    const out = await decodeB64(data.data![0]!.b64_json!);
    expect([out.width, out.height, out.format]).toEqual([W, H, 'png']);
    const original = await sharp(source).ensureAlpha().raw().toBuffer();
    const diff = diffByRegion(original, out.pixels, W, hole);
    expect(diff.outside).toBe(0);
    expect(diff.inside).toBeGreaterThan(diff.insideTotal * 0.5);

    const row = await usageRow(t, request_id!);
    expect(row).toMatchObject({ endpoint: '/images/edits', status: 200, images: 1 });
    expect(row.input_image_tokens).toBeGreaterThan(0);
  });

  it('accepts several references as image[] and sniffs formats from bytes, not MIME types', async () => {
    const second = await sharp(await testPicture(512, 512))
      .jpeg()
      .toBuffer();
    const res = await t.client.images.edit({
      model: 'image-model-2',
      prompt: 'blend these',
      image: [
        await toFile(source, 'a.png', { type: 'application/octet-stream' }),
        await toFile(second, 'b.bin', { type: 'image/png' /* wrong on purpose */ }),
      ],
      size: '1024x1024',
      output_format: 'webp',
    });
    const out = await decodeB64(res.data![0]!.b64_json!);
    expect([out.width, out.height, out.format]).toEqual([1024, 1024, 'webp']);
  });

  it('accepts the JSON edit form with data URLs', async () => {
    const res = await fetch(`${t.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'image-model-2',
        prompt: 'a balloon',
        images: [{ image_url: `data:image/png;base64,${source.toString('base64')}` }],
        mask: { image_url: `data:image/png;base64,${mask.toString('base64')}` },
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<{ b64_json: string }> };
    const out = await decodeB64(body.data[0]!.b64_json);
    const original = await sharp(source).ensureAlpha().raw().toBuffer();
    expect(diffByRegion(original, out.pixels, W, hole).outside).toBe(0);
  });

  it('streams an edit as image_edit.* events', async () => {
    const stream = await t.client.images.edit({
      model: 'image-model-2',
      prompt: 'a balloon',
      image: await toFile(source, 'scene.png'),
      mask: await toFile(mask, 'mask.png'),
      stream: true,
      partial_images: 1,
    });
    const types = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual(['image_edit.partial_image', 'image_edit.completed']);
  });

  it('rejects a mask of other dimensions, naming the mismatch', async () => {
    const small = await rectMask(512, 512, { left: 0, top: 0, width: 10, height: 10 });
    const err = await t.client.images
      .edit({
        model: 'image-model-2',
        prompt: 'x',
        image: await toFile(source, 'a.png'),
        mask: await toFile(small, 'm.png'),
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'mask' });
    expect((err as Error).message).toMatch(/512x512/);
  });

  it('rejects a mask without an alpha channel', async () => {
    const opaque = await sharp(source).removeAlpha().png().toBuffer();
    const err = await t.client.images
      .edit({
        model: 'image-model-2',
        prompt: 'x',
        image: await toFile(source, 'a.png'),
        mask: await toFile(opaque, 'm.png'),
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'mask' });
    expect((err as Error).message).toMatch(/alpha/i);
  });

  it('rejects a mask whose format differs from the image', async () => {
    const webpMask = await sharp(mask).webp({ lossless: true }).toBuffer();
    const err = await t.client.images
      .edit({
        model: 'image-model-2',
        prompt: 'x',
        image: await toFile(source, 'a.png'),
        mask: await toFile(webpMask, 'm.webp'),
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'mask' });
  });

  it('rejects input_fidelity', async () => {
    const form = new FormData();
    form.append('model', 'image-model-2');
    form.append('prompt', 'x');
    form.append('input_fidelity', 'high');
    form.append('image[]', new Blob([source], { type: 'image/png' }), 'a.png');
    const res = await fetch(`${t.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}` },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('input_fidelity');
  });

  it('rejects a file that is not an image', async () => {
    const form = new FormData();
    form.append('model', 'image-model-2');
    form.append('prompt', 'x');
    form.append(
      'image',
      new Blob([Buffer.from('GIF89a not really')], { type: 'image/png' }),
      'a.png',
    );
    const res = await fetch(`${t.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}` },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('image');
  });

  it('rejects an input of 50 MiB or more with 400 instead of truncating it', async () => {
    const big = Buffer.alloc(50 * 1024 * 1024);
    source.copy(big); // a valid PNG header, then padding: size is what must be refused
    const form = new FormData();
    form.append('model', 'image-model-2');
    form.append('prompt', 'x');
    form.append('image[]', new Blob([big], { type: 'image/png' }), 'huge.png');
    const res = await fetch(`${t.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}` },
      body: form,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { param: string; code: string } };
    expect(body.error.code).toBe('file_too_large');
  });
});
