import net from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

/** Reads one HTTP/1.1 response with a Content-Length from a raw socket. */
async function readResponse(socket: net.Socket): Promise<{ status: number; head: string }> {
  let buffered = Buffer.alloc(0);
  for (;;) {
    const end = buffered.indexOf('\r\n\r\n');
    if (end >= 0) {
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      while (buffered.length < end + 4 + length) {
        const [chunk] = (await once(socket, 'data')) as [Buffer];
        buffered = Buffer.concat([buffered, chunk]);
      }
      return { status: Number(head.split(' ')[1]), head };
    }
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    buffered = Buffer.concat([buffered, chunk]);
  }
}

describe('idle keep-alive connections', () => {
  it("says it keeps them 65 s, and serves a second request after Node's default 5 s of silence", async () => {
    const { hostname, port } = new URL(t.url);
    const socket = net.connect(Number(port), hostname);
    await once(socket, 'connect');
    let closed = false;
    socket.on('close', () => (closed = true));
    const request = `GET /v1/models HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${t.key}\r\n\r\n`;

    socket.write(request);
    const first = await readResponse(socket);
    expect(first.status).toBe(200);
    // Clients that follow the hint (undici) keep the connection until a second before it.
    expect(first.head).toMatch(/\r\nkeep-alive: timeout=65(\r\n|$)/i);

    // Silent for longer than Node's own keep-alive (5 s), which a client pool of about that
    // idle time (httpx) or a client reading late raced: the connection is still there.
    await sleep(5_500);
    expect(closed).toBe(false);
    socket.write(request);
    expect((await readResponse(socket)).status).toBe(200);
    socket.destroy();
  }, 20_000);
});
