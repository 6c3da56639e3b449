import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  usageListRecordSchema,
  type ImageDetail,
  type ImageRecord,
  type ImagesPage,
  type UsageListResponse,
} from '../../src/shared/admin';
import { SETTINGS } from '../../src/gateway/storage/settings';
import { rectMask } from '../support/images';
import {
  settingsIn,
  clearFaults,
  keptImages,
  scriptFaults,
  startTestGateway,
  studioLogin,
  usageRow,
  type StudioClient,
  type TestGateway,
  simInit,
} from '../support/gateway';

let t: TestGateway;
let studio: StudioClient;

beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
});
afterEach(async () => {
  await (await settingsIn(t.db)).reset(SETTINGS.keepApiImages);
  await clearFaults(t.simUrl);
});
afterAll(async () => {
  await t.close();
});

const base = { model: 'image-model-2', quality: 'low', size: '1024x1024' };

/** POST a JSON body to /v1 as the studio (session) or as an app (key); the answer as text. */
async function postV1(
  path: string,
  body: Record<string, unknown>,
  as: 'studio' | { key: string },
): Promise<{ status: number; requestId: string; text: string }> {
  const init = {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(as === 'studio' ? {} : { authorization: `Bearer ${as.key}` }),
    },
    body: JSON.stringify(body),
  };
  const res =
    as === 'studio'
      ? await studio.fetch(`/v1${path}`, init)
      : await fetch(`${t.url}/v1${path}`, init);
  return {
    status: res.status,
    requestId: res.headers.get('x-request-id')!,
    text: await res.text(),
  };
}

/** POST /v1/images/generations as the studio (session) or as an app (key). */
const generate = (body: Record<string, unknown>, as: 'studio' | { key: string } = 'studio') =>
  postV1('/images/generations', { ...base, ...body }, as);

async function image(id: string): Promise<ImageDetail> {
  return studio.json<ImageDetail>(`/api/admin/images/${id}`);
}

async function bytesOf(pathname: string): Promise<{ res: Response; bytes: Buffer }> {
  const res = await studio.fetch(pathname);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('images kept', () => {
  it('keeps a studio image with its prompt, sizes, tokens and cost, and a file of the delivered size', async () => {
    const { status, requestId } = await generate({
      prompt: 'a quiet harbour at dawn',
      size: '1536x1024',
      output_format: 'webp',
    });
    expect(status).toBe(200);
    const [id] = await keptImages(t, requestId);
    const row = await usageRow(t, requestId);
    const { image: record, chain } = await image(id!);
    expect(chain).toEqual([]);
    expect(record).toMatchObject({
      requestId,
      index: 0,
      source: 'studio',
      endpoint: '/images/generations',
      prompt: 'a quiet harbour at dawn',
      model: 'image-model-2',
      requestedSize: '1536x1024',
      deliveredSize: '1536x1024',
      quality: 'low',
      outputFormat: 'webp',
      width: 1536,
      height: 1024,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      totalTokens: row.total_tokens,
      costMicros: row.cost_micros,
      favourite: false,
      parentId: null,
      hasMask: false,
      apiKeyId: row.api_key_id,
      fallbackStep: null,
    });
    expect(record.costMicros).toBeGreaterThan(0);

    const file = await bytesOf(`/api/admin/images/${id}/file`);
    expect(file.res.headers.get('content-type')).toBe('image/webp');
    expect(file.res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(file.bytes.length).toBe(record.bytes);
    const meta = await sharp(file.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1536, 1024]);

    const thumb = await bytesOf(`/api/admin/images/${id}/thumb`);
    expect(thumb.res.headers.get('content-type')).toBe('image/webp');
    const small = await sharp(thumb.bytes).metadata();
    expect([small.format, small.width, small.height]).toEqual(['webp', 256, 171]);

    // On disk under images/YYYY/MM, with the thumbnail beside it.
    const month = new Date(record.createdAt);
    const folder = path.join(
      t.dataDir,
      'images',
      String(month.getFullYear()),
      String(month.getMonth() + 1).padStart(2, '0'),
    );
    expect(fs.readdirSync(folder).sort()).toEqual([`${id}.thumb.webp`, `${id}.webp`]);
  });

  it('keeps a 4K image decoded on the way: its file is the caller’s bytes at once', async () => {
    const { status, requestId, text } = await generate({
      prompt: 'a wide valley',
      size: '3840x2160',
    });
    expect(status).toBe(200);
    const sent = Buffer.from(
      (JSON.parse(text) as { data: [{ b64_json: string }] }).data[0].b64_json,
      'base64',
    );
    const [id] = await keptImages(t, requestId);
    const fileOf = () =>
      t.db.prepare('SELECT file FROM images WHERE id = ?').pluck().get(id) as string;
    // The caller's bytes come back, as a PNG.
    const file = await bytesOf(`/api/admin/images/${id}/file`);
    expect(file.res.headers.get('content-type')).toBe('image/png');
    expect(file.bytes.equals(sent)).toBe(true);
    const thumb = await bytesOf(`/api/admin/images/${id}/thumb`);
    expect((await sharp(thumb.bytes).metadata()).width).toBe(256);
    expect(fileOf()).toMatch(/\.png$/);
    const onDisk = fs.readFileSync(path.join(t.dataDir, 'images', ...fileOf().split('/')));
    expect(onDisk.equals(sent)).toBe(true);
    expect((await bytesOf(`/api/admin/images/${id}/file`)).bytes.equals(sent)).toBe(true);
  });

  it('keeps a streamed studio image', async () => {
    const { status, requestId, text } = await generate({
      prompt: 'a paper lantern',
      stream: true,
      partial_images: 1,
    });
    expect(status).toBe(200);
    expect(text).toContain('event: image_generation.completed');
    const [id] = await keptImages(t, requestId);
    const { bytes } = await bytesOf(`/api/admin/images/${id}/file`);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1024]);
  });

  it('answers 404, not 500, for an image whose file is gone (another instance removed it)', async () => {
    // An API image: its thumbnail is made only when first asked, so none is made meanwhile.
    const app = await t.newKey('gallery-gone');
    const { requestId } = await generate({ prompt: 'a vanished file' }, { key: app.key });
    const [id] = await keptImages(t, requestId);
    const { image: record } = await image(id!);
    const month = new Date(record.createdAt);
    const folder = path.join(
      t.dataDir,
      'images',
      String(month.getFullYear()),
      String(month.getMonth() + 1).padStart(2, '0'),
    );
    fs.rmSync(path.join(folder, `${id}.png`));
    for (const part of ['file', 'thumb']) {
      const res = await studio.fetch(`/api/admin/images/${id}/${part}`);
      expect(res.status, part).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('keeps API images by default, each with its share of the request', async () => {
    const app = await t.newKey('gallery-app');
    const { requestId } = await generate({ prompt: 'three pebbles', n: 3 }, { key: app.key });
    const ids = await keptImages(t, requestId, 3);
    const row = await usageRow(t, requestId);
    const records = await Promise.all(ids.map(async (id) => (await image(id)).image));
    expect(records.map((r) => [r.index, r.source, r.apiKeyId])).toEqual([
      [0, 'api', app.id],
      [1, 'api', app.id],
      [2, 'api', app.id],
    ]);
    const sum = (field: 'costMicros' | 'totalTokens' | 'outputTokens') =>
      records.reduce((total, r) => total + r[field], 0);
    expect(sum('costMicros')).toBe(row.cost_micros);
    expect(sum('totalTokens')).toBe(row.total_tokens);
    expect(sum('outputTokens')).toBe(row.output_tokens);
  });

  it('keeps no API image while keepApiImages is off, but still the studio’s', async () => {
    await studio.json('/api/admin/settings', { method: 'PUT', body: { keepApiImages: false } });
    const app = await t.newKey('private-app');
    const api = await generate({ prompt: 'not for the gallery' }, { key: app.key });
    expect(api.status).toBe(200);
    await usageRow(t, api.requestId);
    const mine = await generate({ prompt: 'for the gallery' });
    await keptImages(t, mine.requestId);
    // One writer, in order: had the API image been kept, it would be in by now.
    const count = t.db.prepare('SELECT COUNT(*) FROM images WHERE request_id = ?').pluck();
    expect(count.get(api.requestId)).toBe(0);
  });

  it('keeps the image of a caller who disconnected, even with keepApiImages off', async () => {
    await studio.json('/api/admin/settings', { method: 'PUT', body: { keepApiImages: false } });
    const leaving = await t.newKey('leaving');
    const recorded = new Promise<string>((resolve) => {
      const onUsage = (id: string) => {
        if (
          t.db
            .prepare('SELECT api_key_id FROM usage_records WHERE request_id = ?')
            .pluck()
            .get(id) !== leaving.id
        )
          return;
        t.gateway.events.off('usage', onUsage);
        resolve(id);
      };
      t.gateway.events.on('usage', onUsage);
    });
    await scriptFaults(t.simUrl, [{ kind: 'slow', delayMs: 400 }]);
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
    const controller = new AbortController();
    const client = new OpenAI({ apiKey: leaving.key, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const pending = client.images
      .generate({ ...base, prompt: 'paid for, never seen' } as never, { signal: controller.signal })
      .catch((e: unknown) => e);
    // Leave once the upstream call is under way (the simulator's call log is the signal).
    const calls = async () =>
      (
        (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
          calls: unknown[];
        }
      ).calls;
    while ((await calls()).length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    const requestId = await recorded;
    expect((await usageRow(t, requestId)).status).toBe(499);
    const [id] = await keptImages(t, requestId);
    const { image: record } = await image(id!);
    expect(record).toMatchObject({
      source: 'api',
      prompt: 'paid for, never seen',
      apiKeyId: leaving.id,
    });
    const meta = await sharp((await bytesOf(`/api/admin/images/${id}/file`)).bytes).metadata();
    expect([meta.width, meta.height]).toEqual([1024, 1024]);
    // The usage list names what was kept, so the studio can show the request as delivered.
    const { records } = await studio.json<UsageListResponse>(
      `/api/admin/usage?apiKeyId=${leaving.id}`,
    );
    expect(records.map((r) => [r.status, r.images, r.keptImageIds, r.prompt])).toEqual([
      [499, 1, [id], 'paid for, never seen'],
    ]);
  });

  it('names each usage row’s kept images and their prompt, and none for a request that kept none', async () => {
    const two = await generate({ prompt: 'two lanterns', n: 2 });
    expect(two.status).toBe(200);
    const ids = await keptImages(t, two.requestId, 2);
    const refused = await generate({ prompt: 'no image', size: '1000x1000' });
    expect(refused.status).toBe(400);
    await usageRow(t, refused.requestId);
    const { records } = await studio.json<UsageListResponse>('/api/admin/usage?limit=1000');
    const byId = new Map(records.map((r) => [r.requestId, r]));
    expect(byId.get(two.requestId)).toMatchObject({ keptImageIds: ids, prompt: 'two lanterns' });
    expect(byId.get(refused.requestId)).toMatchObject({ keptImageIds: [], prompt: null });
    // The rows are still valid usage records (the live log's schema), with two fields more.
    for (const r of records) expect(usageListRecordSchema.safeParse(r).success).toBe(true);
  });
});

describe('images from /v1/responses', () => {
  const tool = {
    type: 'image_generation',
    quality: 'low',
    size: '1024x1536',
    output_format: 'jpeg',
  };

  /** POST /v1/responses as an app (key) or as the studio (session); the body as text. */
  const respond = (body: Record<string, unknown>, as: 'studio' | { key: string }) =>
    postV1('/responses', { model: 'agent-model-1', tools: [tool], ...body }, as);

  /** The image results the caller received, in the order they came (a stream repeats them). */
  const results = (text: string): string[] =>
    [...text.matchAll(/"result":"([A-Za-z0-9+/=]{256,})"/g)].map((m) => m[1]!);

  it('keeps an API image with its prompt, request id, tool settings and the usage record’s cost', async () => {
    const app = await t.newKey('agent-app');
    const { status, requestId, text } = await respond(
      { input: 'Draw a paper crane on a windowsill.' },
      { key: app.key },
    );
    expect(status).toBe(200);
    const [id] = await keptImages(t, requestId);
    const row = await usageRow(t, requestId);
    const { image: record } = await image(id!);
    expect(record).toMatchObject({
      requestId,
      index: 0,
      source: 'api',
      endpoint: '/responses',
      prompt: 'Draw a paper crane on a windowsill.',
      model: 'image-model-2',
      requestedSize: '1024x1536',
      deliveredSize: '1024x1536',
      quality: 'low',
      outputFormat: 'jpeg',
      width: 1024,
      height: 1536,
      apiKeyId: app.id,
      parentId: null,
      hasMask: false,
    });
    expect(record.revisedPrompt).toEqual(expect.any(String));
    expect(record.outputTokens).toBe(row.output_image_tokens);
    // The gallery's image carries its whole request, the text model's tokens included.
    expect(record.costMicros).toBe(row.cost_micros);

    // The file is exactly the image the caller got.
    const [sent] = results(text);
    const file = await bytesOf(`/api/admin/images/${id}/file`);
    expect(file.res.headers.get('content-type')).toBe('image/jpeg');
    expect(file.bytes.equals(Buffer.from(sent!, 'base64'))).toBe(true);

    // And the gallery finds it by its prompt.
    const found = await studio.json<ImagesPage>('/api/admin/images?q=paper%20crane&source=api');
    expect(found.images.map((i) => [i.id, i.requestId])).toEqual([[id, requestId]]);
  });

  it('keeps a streamed image once, though the stream carries it twice', async () => {
    const app = await t.newKey('agent-stream');
    const { status, requestId, text } = await respond(
      {
        input: 'Draw a kite over the dunes.',
        stream: true,
        tools: [{ ...tool, partial_images: 1 }],
      },
      { key: app.key },
    );
    expect(status).toBe(200);
    expect(text).toContain('event: response.image_generation_call.partial_image');
    const sent = results(text);
    // In response.output_item.done and again in response.completed: the same image.
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe(sent[1]);
    const [id] = await keptImages(t, requestId);
    const file = await bytesOf(`/api/admin/images/${id}/file`);
    expect(file.bytes.equals(Buffer.from(sent[0]!, 'base64'))).toBe(true);
    expect((await image(id!)).image).toMatchObject({
      requestId,
      prompt: 'Draw a kite over the dunes.',
      endpoint: '/responses',
    });
    // One writer, in order: a second copy would have been written by now.
    await usageRow(t, requestId);
    const count = t.db.prepare('SELECT COUNT(*) FROM images WHERE request_id = ?').pluck();
    expect(count.get(requestId)).toBe(1);
  });

  it('keeps no API image while keepApiImages is off, but always the studio’s', async () => {
    await studio.json('/api/admin/settings', { method: 'PUT', body: { keepApiImages: false } });
    const app = await t.newKey('agent-private');
    const api = await respond({ input: 'Draw a secret map.' }, { key: app.key });
    expect(api.status).toBe(200);
    await usageRow(t, api.requestId);
    const mine = await respond({ input: 'Draw a lighthouse from the studio.' }, 'studio');
    expect(mine.status).toBe(200);
    const [id] = await keptImages(t, mine.requestId);
    expect((await image(id!)).image).toMatchObject({
      source: 'studio',
      prompt: 'Draw a lighthouse from the studio.',
    });
    const count = t.db.prepare('SELECT COUNT(*) FROM images WHERE request_id = ?').pluck();
    expect(count.get(api.requestId)).toBe(0);
  });

  it('keeps nothing for an answer without an image', async () => {
    const app = await t.newKey('agent-text');
    const text = await respond({ input: 'Say hello.', tools: [] }, { key: app.key });
    expect(text.status).toBe(200);
    await usageRow(t, text.requestId);
    // Then an image request: once it is in, the text answer would have been too.
    const next = await respond({ input: 'Draw a pear.' }, { key: app.key });
    await keptImages(t, next.requestId);
    const count = t.db.prepare('SELECT COUNT(*) FROM images WHERE request_id = ?').pluck();
    expect(count.get(text.requestId)).toBe(0);
  });
});

describe('the edit chain', () => {
  async function edit(
    parentId: string | null,
    prompt: string,
    source: Buffer,
    mask?: Buffer,
  ): Promise<{ status: number; requestId: string; body: string }> {
    const form = new FormData();
    form.append('model', 'image-model-2');
    form.append('prompt', prompt);
    form.append('quality', 'low');
    form.append('image', new Blob([new Uint8Array(source)], { type: 'image/png' }), 'source.png');
    if (mask)
      form.append('mask', new Blob([new Uint8Array(mask)], { type: 'image/png' }), 'mask.png');
    const res = await studio.fetch('/v1/images/edits', {
      method: 'POST',
      headers: parentId ? { 'x-atelier-parent-image': parentId } : {},
      body: form,
    });
    return {
      status: res.status,
      requestId: res.headers.get('x-request-id')!,
      body: await res.text(),
    };
  }

  it('links an edit to its parent with the mask it used, and walks up to the root', async () => {
    const root = await generate({ prompt: 'an empty beach' });
    const [rootId] = await keptImages(t, root.requestId);
    const rootBytes = (await bytesOf(`/api/admin/images/${rootId}/file`)).bytes;

    const mask = await rectMask(1024, 1024, { left: 300, top: 500, width: 300, height: 200 });
    const child = await edit(rootId!, 'add a red boat', rootBytes, mask);
    expect(child.status).toBe(200);
    const [childId] = await keptImages(t, child.requestId);
    const childDetail = await image(childId!);
    expect(childDetail.image).toMatchObject({
      endpoint: '/images/edits',
      prompt: 'add a red boat',
      parentId: rootId,
      hasMask: true,
      source: 'studio',
    });
    expect(childDetail.chain.map((i) => i.id)).toEqual([rootId]);
    const storedMask = await bytesOf(`/api/admin/images/${childId}/mask`);
    expect(storedMask.res.headers.get('content-type')).toBe('image/png');
    expect(storedMask.bytes.equals(mask)).toBe(true);

    const childBytes = (await bytesOf(`/api/admin/images/${childId}/file`)).bytes;
    const grandchild = await edit(childId!, 'make it dusk', childBytes);
    const [grandchildId] = await keptImages(t, grandchild.requestId);
    const detail = await image(grandchildId!);
    expect(detail.image).toMatchObject({
      parentId: childId,
      hasMask: false,
      prompt: 'make it dusk',
    });
    expect(detail.chain.map((i) => [i.id, i.prompt])).toEqual([
      [childId, 'add a red boat'],
      [rootId, 'an empty beach'],
    ]);
    expect((await studio.fetch(`/api/admin/images/${grandchildId}/mask`)).status).toBe(404);

    // Deleting a link keeps the rest: the child just loses its parent.
    expect(await studio.json(`/api/admin/images/${childId}`, { method: 'DELETE' })).toEqual({
      ok: true,
    });
    expect((await image(grandchildId!)).image.parentId).toBeNull();
  });

  it('refuses an edit whose parent is not in the gallery, before any upstream work', async () => {
    const source = await sharp({
      create: { width: 64, height: 64, channels: 3, background: '#888' },
    })
      .png()
      .toBuffer();
    const res = await edit('img_0123456789abcdef0123', 'anything', source);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      error: { param: 'x-atelier-parent-image', code: 'invalid_value' },
    });
  });
});

describe('browsing the gallery', () => {
  const prompts = ['Paging: a fox', 'Paging: an owl', 'Paging: 100% wool scarf', 'Paging: a_snake'];
  const ids: string[] = [];

  beforeAll(async () => {
    for (const prompt of prompts) {
      const { requestId } = await generate({ prompt });
      ids.push(...(await keptImages(t, requestId)));
    }
    // Three images of one request share their millisecond: pages must not split them.
    const { requestId } = await generate({ prompt: 'Paging: triplets', n: 3 });
    ids.push(...(await keptImages(t, requestId, 3)));
  });

  const list = (query: string) => studio.json<ImagesPage>(`/api/admin/images?${query}`);

  it('pages newest first by cursor, never splitting or repeating an image', async () => {
    const first = await list('limit=2&q=Paging');
    expect(first.images.map((i) => i.prompt)).toEqual([
      'Paging: triplets',
      'Paging: triplets',
      'Paging: triplets',
    ]);
    expect(first.nextBefore).toBe(first.images[0]!.createdAt);
    const seen: ImageRecord[] = [...first.images];
    let cursor = first.nextBefore;
    while (cursor !== null) {
      const page = await list(`limit=2&q=Paging&before=${cursor}`);
      seen.push(...page.images);
      cursor = page.nextBefore;
    }
    expect(seen.map((i) => i.id).sort()).toEqual([...ids].sort());
    expect(new Set(seen.map((i) => i.id)).size).toBe(seen.length);
    const times = seen.map((i) => i.createdAt);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('sends the first screen of thumbnails inline with a list when asked, byte for byte', async () => {
    const [a, b] = ids.slice(-2);
    // Made on demand for API images, at a pause for studio ones: asked first, so both exist.
    const thumbA = (await bytesOf(`/api/admin/images/${a}/thumb`)).bytes;
    const thumbB = (await bytesOf(`/api/admin/images/${b}/thumb`)).bytes;
    const page = await list('q=Paging&limit=3&thumbs=3');
    const newest = page.images.map((i) => i.id);
    expect(newest).toEqual(expect.arrayContaining([a, b]));
    expect(Buffer.from(page.thumbs![a!]!, 'base64').equals(thumbA)).toBe(true);
    expect(Buffer.from(page.thumbs![b!]!, 'base64').equals(thumbB)).toBe(true);
    // Only the page's own images, and none without asking.
    expect(Object.keys(page.thumbs!).every((id) => newest.includes(id))).toBe(true);
    expect((await list('q=Paging&limit=3')).thumbs).toBeUndefined();
    const tooMany = await studio.fetch('/api/admin/images?thumbs=61');
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: { param: string } }).error.param).toBe('thumbs');
  });

  it('searches prompts case-insensitively, with % and _ taken literally', async () => {
    expect((await list('q=PAGING%3A%20AN%20OWL')).images.map((i) => i.prompt)).toEqual([
      'Paging: an owl',
    ]);
    expect((await list('q=%25')).images.map((i) => i.prompt)).toEqual(['Paging: 100% wool scarf']);
    expect((await list('q=_')).images.map((i) => i.prompt)).toEqual(['Paging: a_snake']);
    expect((await list('q=no%20such%20prompt')).images).toEqual([]);
  });

  it('marks favourites and filters by them and by source', async () => {
    const owl = ids[1]!;
    const marked = await studio.json<{ image: ImageRecord }>(`/api/admin/images/${owl}`, {
      method: 'PATCH',
      body: { favourite: true },
    });
    expect(marked.image.favourite).toBe(true);
    expect((await list('favourite=1')).images.map((i) => i.id)).toEqual([owl]);
    expect((await list('source=studio&q=Paging')).images).toHaveLength(ids.length);
    expect((await list('source=api&q=Paging')).images).toHaveLength(0);
    const bad = await studio.fetch('/api/admin/images?limit=500');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('limit');
  });

  it('filters by model, size, API key and time, alone and together', async () => {
    const app = await t.newKey('gallery-search-app');
    const wide = await generate(
      { prompt: 'Filters: a wide field', model: 'image-model-2-2026-04-21', size: '1536x1024' },
      { key: app.key },
    );
    const [wideId] = await keptImages(t, wide.requestId);
    const { image: wideImage } = await image(wideId!);
    const found = (query: string) => list(query).then((p) => p.images.map((i) => i.id));

    expect(await found('q=Filters&model=image-model-2-2026-04-21')).toEqual([wideId]);
    expect(await found('q=Paging&model=image-model-2')).toHaveLength(ids.length);
    expect(await found('q=Filters&size=1536x1024')).toEqual([wideId]);
    expect(await found('q=Paging&size=1536x1024')).toEqual([]);
    expect(await found(`key=${app.id}`)).toEqual([wideId]);
    expect(await found('key=no-such-key')).toEqual([]);
    const at = wideImage.createdAt;
    expect(await found(`since=${at}&q=Filters`)).toEqual([wideId]);
    expect(await found(`until=${at}&q=Filters`)).toEqual([]);
    expect(await found(`since=${at}&until=${at + 1}&size=1536x1024&key=${app.id}`)).toEqual([
      wideId,
    ]);
  });

  it('refuses a bad filter with a 400 naming it, before any lookup', async () => {
    for (const [query, param] of [
      ['size=big', 'size'],
      ['size=1024x', 'size'],
      ['since=yesterday', 'since'],
      ['until=-1', 'until'],
      ['since=20&until=10', 'until'],
      [`model=${'m'.repeat(101)}`, 'model'],
      ['key=', 'key'],
    ] as const) {
      const res = await studio.fetch(`/api/admin/images?${query}`);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: { param: string; message: string } };
      expect(body.error.param, query).toBe(param);
      expect(body.error.message).toContain(param);
    }
  });

  it('deletes an image with its files', async () => {
    const fox = ids[0]!;
    const { image: record } = await image(fox);
    // Thumbnails are made when the gateway is idle, or at once when asked for.
    expect((await bytesOf(`/api/admin/images/${fox}/thumb`)).res.status).toBe(200);
    const folder = path.join(t.dataDir, 'images');
    const files = fs
      .readdirSync(folder, { recursive: true })
      .map(String)
      .filter((f) => f.includes(fox));
    expect(files).toHaveLength(2);
    expect(record.prompt).toBe('Paging: a fox');
    expect(await studio.json(`/api/admin/images/${fox}`, { method: 'DELETE' })).toEqual({
      ok: true,
    });
    expect(
      fs
        .readdirSync(folder, { recursive: true })
        .map(String)
        .filter((f) => f.includes(fox)),
    ).toEqual([]);
    for (const suffix of ['', '/file', '/thumb']) {
      expect((await studio.fetch(`/api/admin/images/${fox}${suffix}`)).status).toBe(404);
    }
    expect((await studio.fetch(`/api/admin/images/${fox}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('makes a missing thumbnail again when it is asked for', async () => {
    const owl = ids[1]!;
    expect((await bytesOf(`/api/admin/images/${owl}/thumb`)).res.status).toBe(200);
    const rel = t.db.prepare('SELECT thumb FROM images WHERE id = ?').pluck().get(owl) as string;
    fs.rmSync(path.join(t.dataDir, 'images', rel));
    const { res, bytes } = await bytesOf(`/api/admin/images/${owl}/thumb`);
    expect(res.status).toBe(200);
    expect((await sharp(bytes).metadata()).width).toBe(256);
  });
});
