import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { sendPost, UnsentRequestError } from './sendPost';

const body = { chunks: [Buffer.from('{"a":'), Buffer.from('1}')], length: 7 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * A real upstream on loopback. `answer` decides what it does with each request once it has read
 * the whole body; it counts the requests it received (each one generated, and billed, an image at
 * a real provider).
 */
async function upstream(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  let received = 0;
  const closed: Array<Promise<void>> = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      answer(req, res);
    });
  });
  server.on('connection', (socket: Socket) => {
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ connections: 16 });
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
  return {
    post: () => sendPost(url, body, opts),
    received: () => received,
    /** Resolves once every connection opened so far is closed on the upstream's side. */
    allClosed: () => Promise.all(closed.splice(0)),
  };
}

describe('sendPost', () => {
  it('sends once when the upstream reads the whole body and then drops the connection', async () => {
    const { post, received } = await upstream((req) => req.socket.destroy());
    await expect(post()).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    await expect(post()).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    // Each call reached the upstream once: nothing below dispatch sent it again.
    expect(received()).toBe(2);
  });

  it('a burst after the upstream closed its idle keep-alive connections goes out on new ones', async () => {
    // The upstream answers with keep-alive and then closes each connection once idle (its idle
    // timer, made immediate), without a Keep-Alive hint the pool could have timed itself by.
    const { post, received, allClosed } = await upstream((req, res) => {
      res.on('finish', () => setImmediate(() => req.socket.end()));
      res.end('{"ok":true}');
    });
    const burst = () =>
      Promise.all(
        Array.from({ length: 8 }, async () => {
          const res = await post();
          return { status: res.statusCode, text: await res.body.text() };
        }),
      );
    expect(await burst()).toEqual(Array(8).fill({ status: 200, text: '{"ok":true}' }));
    await allClosed();
    expect(await burst()).toEqual(Array(8).fill({ status: 200, text: '{"ok":true}' }));
    expect(received()).toBe(16);
  });

  it('tells a request that never reached a connection apart (it is safe to send again)', async () => {
    // A port nothing listens on: the connection is refused before any byte of the request.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const agent = new Agent();
    cleanups.push(() => agent.close());
    const sent = sendPost(`http://127.0.0.1:${port}/v1/images/generations`, body, {
      dispatcher: agent,
      signal: new AbortController().signal,
      timeoutMs: 5000,
      headers: {},
    });
    await expect(sent).rejects.toBeInstanceOf(UnsentRequestError);
    await expect(sent).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
