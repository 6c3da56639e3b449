import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { tempDir } from '../support/gateway';

/**
 * Real trickling clients on raw sockets against a gateway whose client bounds are short (the
 * defaults are 30 s for headers and body silence, 60 s for the drain, 65 s for idle keep-alive).
 * Each test waits for the server to close the socket; the old gateway never did, so these time out.
 */

const TIMEOUTS = { headersMs: 1_000, bodyIdleMs: 1_000, drainMs: 800, keepAliveMs: 800 };

let gateway: Gateway;
let db: Db;
let dataDir: string;
let key: string;

beforeAll(async () => {
  dataDir = tempDir();
  db = openDatabase(databasePath(dataDir));
  key = (await createKeysRepository(sqliteEngine(db)).create({ name: 'slow', group: 'default' }))
    .key;
  gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    // An image takes about 3.5 s: longer than every client bound above.
    simulatorSpeed: 2,
    oauthCallbackPort: 0,
    clientTimeouts: TIMEOUTS,
    log: () => undefined,
  });
  await gateway.listen();
});

afterAll(async () => {
  await gateway.close(1_000);
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Trickler {
  socket: net.Socket;
  /** Everything the server sent. */
  received(): string;
  /** Resolves when the server ends or resets the connection, with how long it took. */
  closed: Promise<number>;
  /** Writes one byte every `everyMs` until the socket closes. */
  trickle(byte: string, everyMs: number): void;
}

function connect(): Promise<Trickler> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(gateway.port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    let timer: NodeJS.Timeout | undefined;
    const closed = new Promise<number>((done) => {
      const finish = () => {
        clearInterval(timer);
        done(performance.now() - started);
      };
      socket.once('close', finish);
      socket.once('end', finish);
    });
    // Writes after the server closed fail with EPIPE or ECONNRESET: that is the expected end.
    socket.on('error', () => undefined);
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => text,
        closed,
        trickle(byte, everyMs) {
          timer = setInterval(() => {
            if (!socket.destroyed) socket.write(byte);
          }, everyMs);
        },
      }),
    );
    socket.once('error', reject);
  });
}

const host = () => `127.0.0.1:${gateway.port}`;

function head(lines: string[]): string {
  return `${lines.join('\r\n')}\r\n\r\n`;
}

describe('slow and idle clients', () => {
  it('closes a connection without a key that keeps trickling its body after the 401', async () => {
    const client = await connect();
    client.socket.write(
      head([
        'POST /v1/images/generations HTTP/1.1',
        `Host: ${host()}`,
        'Content-Type: application/json',
        'Content-Length: 1000000',
      ]) + '{"prompt":"',
    );
    client.trickle('a', 100);
    const after = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 401/);
    // Closed by the server while the client was still sending, within the drain bound.
    expect(after).toBeLessThan(20_000);
  });

  it('closes a connection whose headers never finish', async () => {
    const client = await connect();
    client.socket.write(`POST /v1/images/generations HTTP/1.1\r\nHost: ${host()}\r\nX-Slow: `);
    client.trickle('a', 100);
    await client.closed;
    // Node answers 408 (or just closes); it never reaches a route.
    expect(client.received()).not.toMatch(/HTTP\/1\.1 (200|401)/);
  });

  it('closes a connection that connects and sends nothing', async () => {
    const client = await connect();
    await client.closed;
    expect(client.received()).not.toMatch(/HTTP\/1\.1 200/);
  });

  it('answers 408 when a key holder stalls mid-body, and records it', async () => {
    const client = await connect();
    client.socket.write(
      head([
        'POST /v1/images/generations HTTP/1.1',
        `Host: ${host()}`,
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        'Content-Length: 500',
      ]) + '{"model":"image-model-2",',
    );
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(client.received()).toContain('request_timeout');
    const requestId = /x-request-id: (\S+)/i.exec(client.received())![1]!;
    const row = await recorded(requestId);
    expect(row.status).toBe(408);
  });

  it('closes an idle keep-alive connection after a response', async () => {
    const client = await connect();
    client.socket.write(
      head(['GET /v1/models HTTP/1.1', `Host: ${host()}`, `Authorization: Bearer ${key}`]),
    );
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200/);
  });

  it('keeps a request that waits longer than every bound for its image', async () => {
    const started = performance.now();
    const res = await fetch(`${gateway.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'image-model-2',
        prompt: 'a slow lighthouse',
        size: '1024x1024',
        quality: 'high',
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<{ b64_json: string }> };
    expect(body.data[0]!.b64_json.length).toBeGreaterThan(1000);
    expect(performance.now() - started).toBeGreaterThan(TIMEOUTS.bodyIdleMs * 2);
  });
});

function recorded(requestId: string): Promise<{ status: number }> {
  const read = () =>
    db.prepare('SELECT status FROM usage_records WHERE request_id = ?').get(requestId) as
      { status: number } | undefined;
  return new Promise((resolve) => {
    const check = (id?: string) => {
      if (id !== undefined && id !== requestId) return;
      const row = read();
      if (!row) return;
      gateway.events.off('usage', check);
      resolve(row);
    };
    gateway.events.on('usage', check);
    check();
  });
}
