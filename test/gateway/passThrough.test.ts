import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { readJournal } from '../../src/gateway/gallery/journal';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { decodeB64 } from '../support/images';
import {
  clearFaults,
  keptImages,
  scriptFaults,
  startTestGateway,
  tempDir,
  usageRow,
  type TestGateway,
  simInit,
} from '../support/gateway';

/**
 * One image streams through the gateway as the upstream sends it (issue 5): the reply starts
 * once the image's header has passed the size check, and a failure after that point breaks the
 * connection instead of being retried behind a 200 that already went out.
 */

const gen = { model: 'image-model-2', prompt: 'a slate roof', size: '1024x1024', quality: 'low' };

async function generate(url: string, key: string, body: Record<string, unknown> = gen) {
  return request(`${url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('with the simulator', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterEach(async () => {
    await clearFaults(t.simUrl);
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
  });
  afterAll(async () => {
    await t.close();
  });

  it('streams one image as a chunked reply that the openai client reads as usual', async () => {
    const res = await generate(t.url, t.key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const json = (await res.body.json()) as Record<string, unknown> & {
      data: Array<{ b64_json: string; revised_prompt?: string }>;
    };
    expect(Object.keys(json)).toEqual([
      'created',
      'data',
      'background',
      'model',
      'output_format',
      'quality',
      'size',
      'usage',
    ]);
    expect(await decodeB64(json.data[0]!.b64_json)).toMatchObject({ width: 1024, height: 1024 });
    expect(json.data[0]!.revised_prompt).toMatch(/slate roof/);

    const viaClient = await t.client.images.generate({ ...gen, quality: 'low', size: '1024x1024' });
    expect(viaClient.data?.[0]?.b64_json?.length).toBeGreaterThan(1000);
    expect(viaClient.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('keeps the gallery copy written on the way, byte for byte, and leaves no spool behind', async () => {
    // The gallery announces an image once its journal is settled: listened for from the start.
    const announced = new Set<string>();
    const announcedNow = new Map<string, () => void>();
    const onImage = (imageId: string, ofRequest: string) => {
      announced.add(ofRequest);
      announcedNow.get(ofRequest)?.();
    };
    t.gateway.events.on('image', onImage);
    try {
      const res = await generate(t.url, t.key, { ...gen, prompt: 'kept on the way' });
      const json = (await res.body.json()) as { data: Array<{ b64_json: string }> };
      const requestId = String(res.headers['x-request-id']);
      const [id] = await keptImages(t, requestId);
      const file = t.db.prepare('SELECT file FROM images WHERE id = ?').pluck().get(id) as string;
      const onDisk = fs.readFileSync(path.join(t.dataDir, 'images', file));
      expect(onDisk.equals(Buffer.from(json.data[0]!.b64_json, 'base64'))).toBe(true);
      // The row can be seen a moment before the announcement: wait for it.
      if (!announced.has(requestId))
        await new Promise<void>((resolve) => announcedNow.set(requestId, resolve));
      // Each run spools in a folder of its own (gallery/spool.ts): no file is left in any but the
      // gallery's journal slots, kept for the next requests; none still holds this request.
      const files = fs
        .readdirSync(path.join(t.dataDir, 'images', '.spool'), {
          recursive: true,
          withFileTypes: true,
        })
        .filter((entry) => entry.isFile());
      expect(files.filter((entry) => !entry.name.endsWith('.journal'))).toEqual([]);
      const journals = await Promise.all(
        files.map((entry) => readJournal(path.join(entry.parentPath, entry.name))),
      );
      expect(journals.filter((journal) => journal?.requestId === requestId)).toEqual([]);
    } finally {
      t.gateway.events.off('image', onImage);
    }
  });

  it('breaks the connection when the upstream fails mid-image, records a 502, never retries', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'reset', afterBytes: 20_000 }]);
    // Images of earlier tests may not have left the spool yet: only this request's file counts.
    const spoolDir = path.join(t.dataDir, 'images', '.spool');
    const before = new Set(fs.readdirSync(spoolDir));
    const res = await generate(t.url, t.key);
    expect(res.statusCode).toBe(200);
    await expect(res.body.text()).rejects.toThrow();
    const requestId = String(res.headers['x-request-id']);
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({ status: 502 });
    const calls = (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
      calls: unknown[];
    };
    expect(calls.calls).toHaveLength(1);
    // The half-written gallery copy went with it.
    expect(fs.readdirSync(spoolDir).filter((file) => !before.has(file))).toEqual([]);
    expect(
      t.db.prepare('SELECT COUNT(*) FROM images WHERE request_id = ?').pluck().get(requestId),
    ).toBe(0);
  });

  it('still retries a failure before the image began, and answers 200', async () => {
    await scriptFaults(t.simUrl, [{ kind: 'reset', afterBytes: 10 }]);
    const res = await generate(t.url, t.key);
    expect(res.statusCode).toBe(200);
    const json = (await res.body.json()) as { data: Array<{ b64_json: string }> };
    expect(json.data[0]!.b64_json.length).toBeGreaterThan(1000);
    const calls = (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
      calls: unknown[];
    };
    expect(calls.calls).toHaveLength(2);
  });

  it('keeps whole replies with a Content-Length where the image must be complete first', async () => {
    const res = await generate(t.url, t.key, { ...gen, n: 2 });
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBeGreaterThan(1000);
    const json = (await res.body.json()) as { data: unknown[] };
    expect(json.data).toHaveLength(2);
  });
});

/** A 1024x1024 noise PNG as base64: big enough to arrive in many pieces. */
async function noisePngBase64(): Promise<string> {
  const png = await sharp({
    create: {
      width: 1024,
      height: 1024,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .png({ compressionLevel: 1 })
    .toBuffer();
  return png.toString('base64');
}

interface HandWrittenUpstream {
  url: string;
  key: string;
  db: Db;
  dataDir: string;
  gateway: Gateway;
  close(): Promise<void>;
}

/**
 * A gateway in front of a hand-written upstream (`answer` gets each request's body), for the
 * timings no simulator fault can script: an answer that stops halfway until the test says so.
 */
async function gatewayBefore(
  answer: (body: string, res: http.ServerResponse) => void,
): Promise<HandWrittenUpstream> {
  const upstream = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    answer(body, res);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const dataDir = tempDir();
  const db = openDatabase(databasePath(dataDir));
  const key = (
    await createKeysRepository(sqliteEngine(db)).create({ name: 'hand-written', group: 'default' })
  ).key;
  const gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    upstreamBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    upstreamApiKey: 'sk-test',
    log: () => undefined,
  });
  return {
    url: await gateway.listen(),
    key,
    db,
    dataDir,
    gateway,
    async close() {
      await gateway.close(1_000);
      upstream.close();
      db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('with an upstream that pauses mid-image', () => {
  let t: HandWrittenUpstream;
  let b64: string;
  /** Resolved by the test once the gateway's client has seen the first image bytes. */
  let releaseRest: () => void = () => undefined;

  beforeAll(async () => {
    b64 = await noisePngBase64();
    t = await gatewayBefore((body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const half = Math.floor(b64.length / 2);
      res.write(`{"created":1700000000,"data":[{"b64_json":"${b64.slice(0, half)}`);
      const rest = body.includes('pause')
        ? new Promise<void>((resolve) => (releaseRest = resolve))
        : Promise.resolve();
      void rest.then(() =>
        res.end(
          `${b64.slice(half)}"}],"background":"opaque","output_format":"png","quality":"low",` +
            `"size":"1024x1024","usage":{"input_tokens":5,"output_tokens":272,"total_tokens":277}}`,
        ),
      );
    });
  });
  afterAll(async () => {
    releaseRest();
    await t.close();
  });

  it('sends the first half of the image before the upstream has sent the second', async () => {
    const res = await generate(t.url, t.key, { ...gen, prompt: 'pause halfway' });
    expect(res.statusCode).toBe(200);
    // A gateway that buffered the whole answer would wait here forever: the upstream sends the
    // rest only after this client has received image bytes.
    let received = '';
    for await (const chunk of res.body) {
      received += (chunk as Buffer).toString('latin1');
      if (received.length > 10_000) break;
    }
    expect(received.startsWith('{"created":1700000000,"data":[{"b64_json":"')).toBe(true);
    releaseRest();
  });

  it('passes the image on byte for byte', async () => {
    const res = await generate(t.url, t.key);
    const json = (await res.body.json()) as { data: Array<{ b64_json: string }>; usage: unknown };
    expect(json.data[0]!.b64_json).toBe(b64);
    expect(json.usage).toMatchObject({ input_tokens: 5, output_tokens: 272, total_tokens: 277 });
  });
});

describe("a stream's completed image", () => {
  let t: HandWrittenUpstream;
  let b64: string;
  let releaseRest: () => void = () => undefined;
  const partialB64 = Buffer.from('a blurry first look').toString('base64');
  const usage = { input_tokens: 5, output_tokens: 372, total_tokens: 377 };

  beforeAll(async () => {
    b64 = await noisePngBase64();
    // An Images API event stream that sends half of the completed image, then waits for the
    // test ('pause'), breaks off ('break') or goes straight on.
    t = await gatewayBefore((body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `event: image_generation.partial_image\ndata: {"type":"image_generation.partial_image",` +
          `"b64_json":"${partialB64}","partial_image_index":0}\n\n`,
      );
      const half = Math.floor(b64.length / 2);
      res.write(
        `event: image_generation.completed\ndata: {"type":"image_generation.completed",` +
          `"b64_json":"${b64.slice(0, half)}`,
      );
      if (body.includes('break')) {
        setImmediate(() => res.destroy());
        return;
      }
      const rest = body.includes('pause')
        ? new Promise<void>((resolve) => (releaseRest = resolve))
        : Promise.resolve();
      void rest.then(() =>
        res.end(
          `${b64.slice(half)}","created_at":1700000000,"size":"1024x1024","quality":"low",` +
            `"background":"opaque","output_format":"png","usage":${JSON.stringify(usage)}}\n\n`,
        ),
      );
    });
  });
  afterAll(async () => {
    releaseRest();
    await t.close();
  });

  const streamed = { ...gen, stream: true, partial_images: 1 };

  it('sends the completed event while the upstream is still sending its image', async () => {
    const res = await generate(t.url, t.key, { ...streamed, prompt: 'pause halfway' });
    expect(res.statusCode).toBe(200);
    // The upstream sends the rest only after this client has received part of the image.
    const start =
      'event: image_generation.completed\ndata: {"type":"image_generation.completed","b64_json":"';
    let received = '';
    for await (const chunk of res.body) {
      received += (chunk as Buffer).toString('latin1');
      const at = received.indexOf(start);
      if (at >= 0 && received.length - at - start.length > 10_000) break;
    }
    expect(received).toContain('event: image_generation.partial_image');
    expect(received.slice(received.indexOf(start) + start.length)).toBe(
      b64.slice(0, received.length - received.indexOf(start) - start.length),
    );
    releaseRest();
  });

  it('ends with the same completed event a whole one would be, as the openai client reads it', async () => {
    const client = new OpenAI({ apiKey: t.key, baseURL: `${t.url}/v1` });
    const events = [];
    const stream = await client.images.generate({
      model: 'image-model-2',
      prompt: 'a streamed roof',
      size: '1024x1024',
      quality: 'low',
      stream: true,
      partial_images: 1,
    });
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    const completed = events[1]! as unknown as Record<string, unknown>;
    expect(Object.keys(completed)).toEqual([
      'type',
      'b64_json',
      'created_at',
      'size',
      'quality',
      'background',
      'output_format',
      'usage',
    ]);
    expect(completed).toMatchObject({
      b64_json: b64,
      created_at: 1700000000,
      size: '1024x1024',
      quality: 'low',
      background: 'opaque',
      output_format: 'png',
      usage,
    });
  });

  it('breaks the connection when the upstream fails inside the image, and records a 502', async () => {
    // Images of earlier tests may not have left the spool yet: only this request's file counts.
    const spoolDir = path.join(t.dataDir, 'images', '.spool');
    const before = new Set(fs.readdirSync(spoolDir));
    const res = await generate(t.url, t.key, { ...streamed, prompt: 'break halfway' });
    expect(res.statusCode).toBe(200);
    await expect(res.body.text()).rejects.toThrow();
    const requestId = String(res.headers['x-request-id']);
    expect(await usageRow(t, requestId)).toMatchObject({ status: 502 });
    expect(
      t.db.prepare('SELECT COUNT(*) FROM images WHERE request_id = ?').pluck().get(requestId),
    ).toBe(0);
    expect(fs.readdirSync(spoolDir).filter((file) => !before.has(file))).toEqual([]);
  });
});
