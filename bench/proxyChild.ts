// Reference proxies: the least any Node gateway can add on this machine. `/buffer/...` reads the
// whole upstream answer and sends it with a Content-Length (the shape the gateway's JSON replies
// have); `/stream/...` pipes it through as it arrives. Neither parses, checks or records anything.
// `/<mode>/bridge/...` goes to the simulator without a native channel instead: the same proxy
// carrying the Responses bridge's bytes (what merely moving them costs).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Agent, request } from 'undici';

const upstream = process.argv[2]!;
const bridgeUpstream = process.argv[3] ?? upstream;
/** Request headers the upstreams read (the subscription ones included). */
const FORWARDED = ['authorization', 'content-type', 'accept', 'chatgpt-account-id'];
const agent = new Agent({ keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0 });

/**
 * Waits for the reply to drain or close, then removes the listener of the one that did not happen:
 * a bare race of two `once` calls leaves the loser's listeners on the response, one more per pause
 * (a 4K bridge stream pauses a dozen times: Node warned of a listener leak).
 */
async function drainOrClose(res: http.ServerResponse): Promise<void> {
  const done = new AbortController();
  try {
    await Promise.race([
      once(res, 'drain', { signal: done.signal }),
      once(res, 'close', { signal: done.signal }),
    ]);
  } finally {
    done.abort();
  }
}

const server = http.createServer((req, res) => {
  void (async () => {
    const [, mode, ...rest] = (req.url ?? '').split('/');
    const bridge = rest[0] === 'bridge';
    const body: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) body.push(chunk);
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const base = bridge ? bridgeUpstream : upstream;
    const answer = await request(`${base}/${(bridge ? rest.slice(1) : rest).join('/')}`, {
      method: 'POST',
      dispatcher: agent,
      headers,
      body: Buffer.concat(body),
    });
    const type = String(answer.headers['content-type'] ?? 'application/json');
    if (mode === 'stream') {
      // The gateway's own write policy (http/backpressure.ts): pause only past 4 MB queued, so
      // the floor is not slowed by a drain round trip per 16 KB that the gateway does not make.
      res.writeHead(answer.statusCode, { 'content-type': type });
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        if (res.destroyed) break;
        res.write(chunk);
        if (res.writableLength > 4 * 1024 * 1024) await drainOrClose(res);
      }
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of answer.body as AsyncIterable<Buffer>) chunks.push(chunk);
    const whole = Buffer.concat(chunks);
    res.writeHead(answer.statusCode, { 'content-type': type, 'content-length': whole.length });
    res.end(whole);
  })().catch((error: unknown) => {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send!({
    type: 'ready',
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
});
process.on('message', (message: { type?: string }) => {
  if (message.type === 'close') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
