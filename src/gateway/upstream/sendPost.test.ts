import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RESENT_WITHIN_MS, sendPost } from './sendPost';

/**
 * A real server on loopback that drops a kept-alive connection when its second request arrives
 * (after `dropAfterMs`): the keep-alive race, where a server closes an idle connection just as
 * the client's pool reuses it, made to happen every time. With a one-connection pool in front.
 */
async function racingServer(dropAfterMs = 0) {
  const seen = new WeakMap<Socket, number>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const n = (seen.get(req.socket) ?? 0) + 1;
    seen.set(req.socket, n);
    req.resume();
    if (n === 2) {
      setTimeout(() => req.socket.destroy(), dropAfterMs);
      return;
    }
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ connections: 1 });
  cleanups.push(
    () => agent.close(),
    () => new Promise((resolve) => server.close(() => resolve())),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/images/generations`;
  const opts = {
    dispatcher: agent,
    signal: new AbortController().signal,
    timeoutMs: 5000,
    headers: {},
  };
  return { post: () => sendPost(url, body, opts), requests: () => requests };
}

const body = { chunks: [Buffer.from('{"a":'), Buffer.from('1}')], length: 7 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('sendPost', () => {
  it('sends once more, on a new connection, when a reused one is dropped at once', async () => {
    const { post, requests } = await racingServer();
    expect(await (await post()).body.text()).toBe('{"ok":true}');
    // The pool reuses the connection; the server drops it on this request; the resend answers.
    const second = await post();
    expect(second.statusCode).toBe(200);
    expect(await second.body.text()).toBe('{"ok":true}');
    expect(requests()).toBe(3);
  });

  it('does not send again when the connection breaks later (the upstream may have worked)', async () => {
    const { post, requests } = await racingServer(RESENT_WITHIN_MS + 200);
    await (await post()).body.text();
    await expect(post()).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(requests()).toBe(2);
  });
});
