import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import OpenAI from 'openai';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { openAccountsRepository } from '../../src/gateway/accounts/repository';
import { databasePath } from '../../src/gateway/core/dataDir';
import { API_KEY_MAX_PIXELS } from '../../src/gateway/accounts/types';
import type { SecretStore } from '../../src/gateway/secrets/types';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { startSimulator, type Simulator } from '../../src/simulator';
import { tempDir, usageRow } from '../support/gateway';
import { decodeB64 } from '../support/images';

/**
 * The Responses bridge streams through the gateway like the API-key path (issue 16): a
 * subscription account whose backend has no native images channel gets its image from
 * `response.output_item.done`, and the gateway's reply starts once that image's header has
 * passed the size check, while the upstream is still sending it. The copy `response.completed`
 * repeats is skipped; usage comes from its `tool_usage`.
 */

const gen = {
  model: 'image-model-2',
  prompt: 'a slate roof',
  size: '1024x1024',
  quality: 'low',
} as const;
const IMAGE_USAGE = {
  input_tokens: 12,
  input_tokens_details: { text_tokens: 12, image_tokens: 0 },
  output_tokens: 272,
  output_tokens_details: { text_tokens: 0, image_tokens: 272 },
  total_tokens: 284,
};

function memorySecrets(values: Record<string, string>): SecretStore {
  const map = new Map(Object.entries(values));
  return {
    kind: 'memory',
    get: async (name) => map.get(name) ?? null,
    set: async (name, value) => void map.set(name, value),
    delete: async (name) => void map.delete(name),
  };
}

interface BridgeGateway {
  url: string;
  key: string;
  db: Db;
  dataDir: string;
  gateway: Gateway;
  close(): Promise<void>;
}

/** A gateway whose only account is a subscription account on `baseUrl` (signed in with `tokens`). */
async function gatewayWithSubscription(
  baseUrl: string,
  tokens: { accessToken: string; refreshToken: string; idToken: string; expiresAt: number | null },
  issuer: string,
  accountId: string,
): Promise<BridgeGateway> {
  const dataDir = tempDir('atelier-bridge-');
  const db = openDatabase(databasePath(dataDir));
  await (
    await openAccountsRepository(sqliteEngine(db))
  ).create({
    name: 'sub',
    kind: 'subscription',
    tier: 'pro',
    groupName: 'default',
    baseUrl,
    issuer,
    bridgeModel: 'agent-model-1',
    upstreamAccountId: accountId,
    secretName: 'sub',
    capacity: 64,
    enabled: true,
    modelMap: {},
    maxPixels: API_KEY_MAX_PIXELS,
  });
  const key = (
    await createKeysRepository(sqliteEngine(db)).create({ name: 'bridge', group: 'default' })
  ).key;
  const gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    secrets: memorySecrets({ sub: JSON.stringify({ type: 'oauth', ...tokens }) }),
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
      db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The id of a request's kept image, once it is in the gallery (the gateway's 'image' event). */
function keptImage(t: BridgeGateway, requestId: string): Promise<string> {
  const read = () =>
    t.db.prepare('SELECT id FROM images WHERE request_id = ?').pluck().get(requestId) as
      string | undefined;
  return new Promise((resolve) => {
    const check = () => {
      const id = read();
      if (id === undefined) return;
      t.gateway.events.off('image', check);
      resolve(id);
    };
    t.gateway.events.on('image', check);
    check();
  });
}

async function generate(url: string, key: string, body: Record<string, unknown> = gen) {
  return request(`${url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('through the simulator without a native channel', () => {
  let sim: Simulator;
  let t: BridgeGateway;
  beforeAll(async () => {
    sim = await startSimulator({ speed: 0, nativeImages: false, payload: 'noise' });
    const tokens = sim.oauth.login({ email: 'bridge@example.com', planType: 'pro' });
    t = await gatewayWithSubscription(
      `${sim.url}/backend-api/codex`,
      {
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
        idToken: tokens.id_token,
        expiresAt: Date.now() + tokens.expires_in * 1000,
      },
      sim.url,
      tokens.account_id,
    );
  });
  afterAll(async () => {
    await t?.close();
    await sim?.close();
  });

  it('streams the image as a chunked reply, keeps the gallery copy, bills from tool_usage', async () => {
    const res = await generate(t.url, t.key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const json = (await res.body.json()) as {
      data: Array<{ b64_json: string }>;
      usage: { output_tokens: number };
    };
    const b64 = json.data[0]!.b64_json;
    expect(await decodeB64(b64)).toMatchObject({ width: 1024, height: 1024 });
    const requestId = String(res.headers['x-request-id']);
    const row = await usageRow(t, requestId);
    expect(row).toMatchObject({ status: 200, images: 1, delivered_size: '1024x1024' });
    expect(row.output_image_tokens).toBeGreaterThan(0);
    expect(json.usage.output_tokens).toBe(row.output_tokens);
    const id = await keptImage(t, requestId);
    const file = t.db.prepare('SELECT file FROM images WHERE id = ?').pluck().get(id) as string;
    expect(
      fs.readFileSync(path.join(t.dataDir, 'images', file)).equals(Buffer.from(b64, 'base64')),
    ).toBe(true);
  });

  it('streams partial images and the completed event, as the openai client reads them', async () => {
    const client = new OpenAI({ apiKey: t.key, baseURL: `${t.url}/v1` });
    const stream = await client.images.generate({ ...gen, stream: true, partial_images: 2 });
    const types: string[] = [];
    let last: { b64_json?: string; usage?: unknown } = {};
    for await (const event of stream) {
      types.push(event.type);
      last = event as typeof last;
    }
    expect(types).toEqual([
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    expect(await decodeB64(last.b64_json!)).toMatchObject({ width: 1024, height: 1024 });
    expect(last.usage).toMatchObject({ output_tokens: expect.any(Number) as number });
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

describe('with a bridge upstream that pauses mid-image', () => {
  let upstream: http.Server;
  let t: BridgeGateway;
  let b64: string;
  let releaseRest: () => void = () => undefined;
  let repeatSent = false;

  const event = (type: string, json: string) => `event: ${type}\ndata: ${json}\n\n`;
  const item = (result: string) =>
    `{"id":"ig_1","type":"image_generation_call","status":"completed","background":"opaque",` +
    `"output_format":"png","quality":"low","size":"1024x1024","revised_prompt":"a slate roof",` +
    `"result":"${result}"}`;

  beforeAll(async () => {
    b64 = await noisePngBase64();
    upstream = http.createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += String(chunk);
      if (!req.url?.endsWith('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"no native channel"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        event(
          'response.created',
          '{"type":"response.created","response":{"id":"resp_1","created_at":1700000000,"output":[]}}',
        ),
      );
      const half = Math.floor(b64.length / 2);
      res.write(
        `event: response.output_item.done\ndata: {"type":"response.output_item.done",` +
          `"output_index":0,"item":${item(b64.slice(0, half)).slice(0, -2)}`,
      );
      if (body.includes('break')) {
        setImmediate(() => res.destroy());
        return;
      }
      const rest = body.includes('pause')
        ? new Promise<void>((resolve) => (releaseRest = resolve))
        : Promise.resolve();
      void rest.then(() => {
        res.write(`${b64.slice(half)}"}}\n\n`);
        repeatSent = true;
        res.end(
          event(
            'response.completed',
            `{"type":"response.completed","response":{"id":"resp_1","created_at":1700000000,` +
              `"output":[${item(b64)}],"tools":[{"type":"image_generation","size":"1024x1024",` +
              `"quality":"low","output_format":"png","background":"opaque"}],` +
              `"usage":{"input_tokens":900,"output_tokens":50,"total_tokens":950},` +
              `"tool_usage":{"image_gen":${JSON.stringify(IMAGE_USAGE)}}}}`,
          ),
        );
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    t = await gatewayWithSubscription(
      `${base}/backend-api/codex`,
      {
        accessToken: 'access',
        refreshToken: 'refresh',
        idToken: '',
        expiresAt: Date.now() + 24 * 3600_000,
      },
      base,
      'acct-1',
    );
  });
  afterAll(async () => {
    releaseRest();
    await t?.close();
    upstream?.close();
  });

  it('sends the first half of the image before the upstream has sent the second', async () => {
    repeatSent = false;
    const res = await generate(t.url, t.key, { ...gen, prompt: 'pause halfway' });
    expect(res.statusCode).toBe(200);
    // A gateway that held output_item.done whole would wait here forever: the upstream sends the
    // rest only after this client has received image bytes.
    const start = '{"created":1700000000,"data":[{"b64_json":"';
    let received = '';
    for await (const chunk of res.body) {
      received += (chunk as Buffer).toString('latin1');
      if (received.length > start.length + 10_000) break;
    }
    expect(repeatSent).toBe(false);
    expect(received.startsWith(start)).toBe(true);
    expect(received.slice(start.length)).toBe(b64.slice(0, received.length - start.length));
    releaseRest();
  });

  it('passes the image on byte for byte and bills it from tool_usage', async () => {
    const res = await generate(t.url, t.key);
    const json = (await res.body.json()) as { data: Array<{ b64_json: string }>; usage: unknown };
    expect(json.data[0]!.b64_json).toBe(b64);
    expect(json.usage).toMatchObject({ input_tokens: 12, output_tokens: 272, total_tokens: 284 });
    const row = await usageRow(t, String(res.headers['x-request-id']));
    expect(row).toMatchObject({ status: 200, output_image_tokens: 272, total_tokens: 284 });
  });

  it('breaks the connection when the upstream fails inside the image, and records a 502', async () => {
    const res = await generate(t.url, t.key, { ...gen, prompt: 'break halfway' });
    expect(res.statusCode).toBe(200);
    await expect(res.body.text()).rejects.toThrow();
    const requestId = String(res.headers['x-request-id']);
    expect(await usageRow(t, requestId)).toMatchObject({ status: 502 });
    expect(
      t.db.prepare('SELECT COUNT(*) FROM images WHERE request_id = ?').pluck().get(requestId),
    ).toBe(0);
  });
});
