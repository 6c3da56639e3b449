import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway';
import { databasePath } from '../../src/gateway/core/dataDir';
import { createKeysRepository } from '../../src/gateway/keys/repository';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { tempDir } from '../support/gateway';

/**
 * A reply sent while the client is still uploading (issue 23: an honest 50 MiB edit on a loaded
 * machine got ECONNRESET instead of its 400). The client must read its error every time: the
 * gateway keeps reading and dropping the rest of the body for as long as the client keeps sending
 * within the body's own idle bound, and never resets the connection under it. Both cores are kept
 * busy by two spinning processes while it runs.
 */

// Node's keep-alive timer (keepAliveMs) starts when a reply finishes, even when the request
// body is still arriving; it must not be what bounds a client that is mid-upload.
const TIMEOUTS = { headersMs: 30_000, bodyIdleMs: 30_000, drainMs: 60_000, keepAliveMs: 300 };
const BOUNDARY = 'atelier-early-reply';
const FILE_BYTES = 8 * 1024 * 1024;

let gateway: Gateway;
let db: Db;
let dataDir: string;
let key: string;
const spinners: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = tempDir();
  db = openDatabase(databasePath(dataDir));
  key = (
    await createKeysRepository(sqliteEngine(db)).create({ name: 'uploader', group: 'default' })
  ).key;
  gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    simulatorSpeed: 0,
    oauthCallbackPort: 0,
    clientTimeouts: TIMEOUTS,
    log: () => undefined,
  });
  await gateway.listen();
  for (let i = 0; i < 2; i++)
    spinners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
});

afterAll(async () => {
  for (const spinner of spinners) spinner.kill('SIGKILL');
  await gateway.close(1_000);
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Resolves once the text received holds one whole HTTP reply (headers and Content-Length body). */
function wholeReply(socket: net.Socket, received: () => string): Promise<string> {
  return new Promise((resolve) => {
    const check = () => {
      const text = received();
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? NaN);
      if (text.length < end + 4 + length) return;
      socket.off('data', check);
      resolve(text);
    };
    socket.on('data', check);
    check();
  });
}

/**
 * Resolves once the server has closed an idle keep-alive connection: from then on, keepAliveMs
 * has passed on the server's clock since the upload's reply finished (that timer started later).
 */
async function keepAliveTimeoutPassed(): Promise<void> {
  const socket = net.connect(gateway.port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${gateway.port}\r\n\r\n`);
  await wholeReply(socket, () => text);
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
}

describe('a reply sent before the upload is over', () => {
  it('lets the client finish sending and read its 400, on a machine whose cores are busy', async () => {
    const badField = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"\r\n\r\nnot a file\r\n`;
    const fileHead =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image[]"; filename="a.png"\r\n` +
      'Content-Type: image/png\r\n\r\n';
    const tail = `\r\n--${BOUNDARY}--\r\n`;
    const length = badField.length + fileHead.length + FILE_BYTES + tail.length;

    const socket = net.connect(gateway.port, '127.0.0.1');
    let text = '';
    const errors: Error[] = [];
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', (error) => errors.push(error));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /v1/images/edits HTTP/1.1\r\nHost: 127.0.0.1:${gateway.port}\r\n` +
        `Authorization: Bearer ${key}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n`,
    );
    socket.write(badField + fileHead);
    socket.write(Buffer.alloc(64 * 1024));

    // The field named image is refused as soon as it is read: the reply comes mid-upload.
    const reply = await wholeReply(socket, () => text);
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(reply).toContain('"param":"image"');

    // The client pauses longer than the keep-alive timeout, then sends the rest of its body.
    await keepAliveTimeoutPassed();
    const rest = Buffer.alloc(FILE_BYTES - 64 * 1024);
    await new Promise<void>((resolve, reject) =>
      socket.write(Buffer.concat([rest, Buffer.from(tail)]), (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    socket.end();
    await closed;
    // Every byte was taken, the connection ended without a reset, and nothing came after the 400.
    expect(errors).toEqual([]);
    expect(text).toBe(reply);
  });
});
