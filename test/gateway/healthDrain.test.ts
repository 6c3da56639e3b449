import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { testPicture } from '../support/images';
import { tempDir } from '../support/gateway';
import { checkRepliesOf } from '../support/openapiReplies';

/**
 * GET /healthz and the drain a load balancer sees (issue 21 item 6): a gateway in front of a
 * hand-written upstream that holds each request until the test releases it, so "in flight" is a
 * state the test controls, not a delay it hopes is long enough.
 */

interface Held {
  arrived: Promise<void>;
  release: () => void;
}

let upstream: http.Server;
let upstreamCalls = 0;
let held: Held;
let gateway: Gateway;
let url = '';
let key = '';
let dataDir = '';
let db: Db;

function holdNext(): void {
  let arrive: () => void = () => undefined;
  let release: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  held = { arrived, release };
  nextArrival = { arrive, released };
}
let nextArrival: { arrive: () => void; released: Promise<void> } | null = null;

beforeAll(async () => {
  const b64 = (await testPicture(1024, 1024)).toString('base64');
  upstream = http.createServer(async (req, res) => {
    for await (const _chunk of req) void _chunk;
    upstreamCalls += 1;
    const turn = nextArrival;
    nextArrival = null;
    turn?.arrive();
    await turn?.released;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        created: 1_700_000_000,
        data: [{ b64_json: b64 }],
        output_format: 'png',
        quality: 'low',
        size: '1024x1024',
        usage: { input_tokens: 5, output_tokens: 272, total_tokens: 277 },
      }),
    );
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  dataDir = tempDir('atelier-health-');
  db = openDatabase(databasePath(dataDir));
  key = (
    await createKeysRepository(sqliteEngine(db)).create({ name: 'balanced', group: 'default' })
  ).key;
  gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    upstreamBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    upstreamApiKey: 'sk-health-test-secret',
    log: () => undefined,
  });
  url = await gateway.listen();
  checkRepliesOf(url);
});

afterAll(async () => {
  held.release();
  await gateway.close(1_000);
  upstream.close();
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const generate = () =>
  fetch(`${url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt: 'a quay', size: '1024x1024' }),
  });

async function health(host?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  // fetch sets Host itself; node:http lets a test send another one.
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${url}/healthz`,
      { headers: host ? { host } : {}, agent: false },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

describe('GET /healthz', () => {
  it('answers 200 without a key: database reachable, migrations current, accepting work', async () => {
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      status: 'ok',
      database: 'reachable',
      migrations: 'current',
      accepting: true,
    });
    // Nothing a caller without a key should learn: no folder, no key, no upstream.
    for (const secret of [dataDir, key, 'sk-health-test-secret', 'sqlite', '127.0.0.1'])
      expect(text).not.toContain(secret);
  });

  it('stays behind the Host guard', async () => {
    expect((await health('attacker.example')).status).toBe(403);
    expect((await health()).status).toBe(200);
  });

  it("is 503 while the database's schema is not this build's", async () => {
    const last = db
      .prepare('SELECT * FROM schema_migrations ORDER BY version DESC LIMIT 1')
      .get() as { version: number; name: string; applied_at: number };
    db.prepare('DELETE FROM schema_migrations WHERE version = ?').run(last.version);
    try {
      expect(await health()).toEqual({
        status: 503,
        body: {
          status: 'unavailable',
          database: 'reachable',
          migrations: 'behind',
          accepting: false,
        },
      });
    } finally {
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        last.version,
        last.name,
        last.applied_at,
      );
    }
    expect((await health()).status).toBe(200);
  });
});

describe('the drain on stop', () => {
  it('turns /healthz 503 at once, refuses new /v1 work with Retry-After, lets the held request finish, then stops', async () => {
    holdNext();
    const inFlight = generate();
    await held.arrived;

    const closing = gateway.close(60_000);
    expect(await health()).toEqual({
      status: 503,
      body: { status: 'draining', database: 'reachable', migrations: 'current', accepting: false },
    });
    const refused = await generate();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('connection')).toBe('close');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'server_draining',
    );
    expect(upstreamCalls).toBe(1);

    held.release();
    const finished = await inFlight;
    expect(finished.status).toBe(200);
    expect(((await finished.json()) as { data: unknown[] }).data).toHaveLength(1);
    await closing;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    // The held request was recorded once; the refused one was never admitted, so no row.
    const rows = db.prepare('SELECT status FROM usage_records ORDER BY created_at').pluck().all();
    expect(rows).toEqual([200]);
  });
});
