import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from './sse';

describe('openSse', () => {
  let url = '';
  let close: () => void = () => undefined;
  beforeAll(async () => {
    const app = express();
    app.get('/', (_req, res) => {
      const sse = openSse(res);
      sse.event('before', ['{"n":1}']);
      const streamed = sse.begin('image', '{"b64_json":"');
      // Written while the image event is open: it must wait, not cut into the image's data.
      sse.event('during', ['{"n":2}']);
      void (async () => {
        await streamed.write(Buffer.from('AAAA'));
        await new Promise((resolve) => setImmediate(resolve));
        await streamed.write(Buffer.from('BBBB'));
        streamed.end('","n":3}');
        sse.event('after', ['{"n":4}']);
        sse.end();
      })();
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    close = () => server.close();
  });
  afterAll(() => close());

  it('streams an event whole while holding back the others until it has ended', async () => {
    const text = await (await fetch(url)).text();
    expect(text).toBe(
      'event: before\ndata: {"n":1}\n\n' +
        'event: image\ndata: {"b64_json":"AAAABBBB","n":3}\n\n' +
        'event: during\ndata: {"n":2}\n\n' +
        'event: after\ndata: {"n":4}\n\n',
    );
  });
});
