import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPicture } from '../support/images';
import { startTestGateway, usageRow, type TestGateway, simInit } from '../support/gateway';

/**
 * Requests an attacker holding a key (or none) would send to take the gateway down. Each one must
 * get a 4xx naming what is wrong, and the gateway must answer the next request as usual.
 */

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

interface RawReply {
  status: number;
  body: string;
  requestId: string | undefined;
}

/** node:http, so the body can be anything: cut short, mislabelled, compressed or not. */
function rawPost(path: string, headers: Record<string, string>, body: Buffer): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: t.gateway.port,
        path,
        method: 'POST',
        // A fresh connection each time: a kept-alive one may be closing as it is reused.
        agent: false,
        headers: {
          authorization: `Bearer ${t.key}`,
          'content-length': String(body.length),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            requestId: res.headers['x-request-id'] as string | undefined,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function errorOf(reply: RawReply): { param: string | null; message: string; code: string | null } {
  return (
    JSON.parse(reply.body) as {
      error: { param: string | null; message: string; code: string | null };
    }
  ).error;
}

/** The gateway still serves: a cheap request after the hostile one. */
async function stillServing(): Promise<void> {
  const res = await fetch(`${t.url}/v1/models`, { headers: { authorization: `Bearer ${t.key}` } });
  expect(res.status).toBe(200);
}

const BOUNDARY = 'hostileboundary';

function multipart(parts: Array<{ name: string; filename?: string; body: Buffer | string }>) {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = part.filename
      ? `form-data; name="${part.name}"; filename="${part.filename}"`
      : `form-data; name="${part.name}"`;
    pieces.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n`));
    if (part.filename) pieces.push(Buffer.from('Content-Type: image/png\r\n'));
    pieces.push(Buffer.from('\r\n'), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

describe('multipart bodies cut short', () => {
  it('answers 400 naming image when the file part ends without its closing boundary', async () => {
    const png = await testPicture(64, 64);
    const whole = multipart([
      { name: 'model', body: 'image-model-2' },
      { name: 'prompt', body: 'a boat' },
      { name: 'image', filename: 'in.png', body: png },
    ]);
    // Cut inside the file's bytes: the body is complete as sent (Content-Length matches), but the
    // form never closes. busboy errors the file stream with "Unexpected end of form".
    const cut = whole.subarray(0, whole.length - png.length / 2);
    const reply = await rawPost('/v1/images/edits', MULTIPART, cut);
    expect(reply.status).toBe(400);
    expect(errorOf(reply).param).toBe('image');
    expect(errorOf(reply).message).toMatch(/incomplete|ended/);
    await stillServing();
    const row = await usageRow(t, reply.requestId!);
    expect(row.status).toBe(400);
  });

  it('answers 400 when the form ends inside the headers of a part', async () => {
    const whole = multipart([{ name: 'image', filename: 'in.png', body: 'x' }]);
    const reply = await rawPost('/v1/images/edits', MULTIPART, whole.subarray(0, 40));
    expect(reply.status).toBe(400);
    await stillServing();
  });
});

describe('over-long text', () => {
  it('refuses a 60 MB prompt in a JSON edit quickly, naming prompt', async () => {
    const png = await testPicture(64, 64);
    const body = Buffer.from(
      JSON.stringify({
        model: 'image-model-2',
        prompt: 'a'.repeat(60 * 1024 * 1024),
        images: [{ image_url: `data:image/png;base64,${png.toString('base64')}` }],
      }),
    );
    const reply = await rawPost('/v1/images/edits', { 'content-type': 'application/json' }, body);
    expect(reply.status).toBe(400);
    expect(errorOf(reply).param).toBe('prompt');
    expect(errorOf(reply).message).toContain('32000');
    await stillServing();
  });
});

describe('/v1/responses', () => {
  const request = (body: unknown) =>
    rawPost(
      '/v1/responses',
      { 'content-type': 'application/json' },
      Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    );

  it('answers 400 naming input for input nested a hundred thousand levels deep', async () => {
    const depth = 100_000;
    const reply = await request(
      `{"model":"agent-model-1","input":${'['.repeat(depth)}"x"${']'.repeat(depth)}}`,
    );
    expect(reply.status).toBe(400);
    expect(errorOf(reply).param).toBe('input');
    await stillServing();
  });

  it('answers 400 naming metadata for deeply nested metadata', async () => {
    const depth = 100_000;
    const reply = await request(
      `{"model":"agent-model-1","input":"hi","metadata":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
    );
    expect(reply.status).toBe(400);
    expect(errorOf(reply).param).toBe('metadata');
    await stillServing();
  });

  it('passes a run of five million equal letters through the content filter', async () => {
    const reply = await request({
      model: 'agent-model-1',
      input: 'x'.repeat(5_000_000),
      tools: [{ type: 'image_generation', quality: 'low', size: '1024x1024' }],
    });
    // The filter lets it through; whatever the simulator makes of it, it is not the gateway's 500.
    expect(reply.status).toBeLessThan(500);
    await stillServing();
  });
});

describe('Content-Encoding', () => {
  const json = JSON.stringify({ model: 'image-model-2', prompt: 'a boat', quality: 'low' });

  it('decodes a gzip body that really is gzip', async () => {
    const reply = await rawPost(
      '/v1/images/generations',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      zlib.gzipSync(json),
    );
    expect(reply.status).toBe(200);
  });

  it('answers 400 for a plain body labelled gzip', async () => {
    const reply = await rawPost(
      '/v1/images/generations',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      Buffer.from(json),
    );
    expect(reply.status).toBe(400);
    expect(errorOf(reply).message).toMatch(/decompress/);
    await stillServing();
  });

  it('answers 400 for gzip cut short', async () => {
    const gz = zlib.gzipSync(json);
    const reply = await rawPost(
      '/v1/images/generations',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      gz.subarray(0, gz.length - 12),
    );
    expect(reply.status).toBe(400);
  });

  it('answers 415 for an encoding it does not know, on JSON and on multipart', async () => {
    const onJson = await rawPost(
      '/v1/images/generations',
      { 'content-type': 'application/json', 'content-encoding': 'unsupported' },
      Buffer.from(json),
    );
    expect(onJson.status).toBe(415);
    expect(errorOf(onJson).message).toContain("'unsupported'");
    const onForm = await rawPost(
      '/v1/images/edits',
      { ...MULTIPART, 'content-encoding': 'gzip' },
      zlib.gzipSync(multipart([{ name: 'prompt', body: 'a boat' }])),
    );
    expect(onForm.status).toBe(415);
    await stillServing();
  });
});

describe('numbers that pass as numbers', () => {
  for (const n of ['1e300', '2.5', '-0', '1e1000', '11']) {
    it(`refuses n: ${n} with a 400 naming n, and records the request`, async () => {
      const reply = await rawPost(
        '/v1/images/generations',
        { 'content-type': 'application/json' },
        Buffer.from(`{"model":"image-model-2","prompt":"a boat","n":${n}}`),
      );
      expect(reply.status).toBe(400);
      expect(errorOf(reply).param).toBe('n');
      const row = await usageRow(t, reply.requestId!);
      expect(row).toMatchObject({ status: 400, model: 'image-model-2', n: 1 });
    });
  }
});

describe('input images are checked before anything goes upstream', () => {
  const calls = async () =>
    (
      (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
        calls: unknown[];
      }
    ).calls.length;

  async function edit(image: Buffer) {
    const before = await calls();
    const reply = await rawPost(
      '/v1/images/edits',
      MULTIPART,
      multipart([
        { name: 'model', body: 'image-model-2' },
        { name: 'prompt', body: 'a boat' },
        { name: 'image', filename: 'in.png', body: image },
      ]),
    );
    expect(await calls()).toBe(before);
    return reply;
  }

  it('answers 400 naming image for a truncated PNG (was a 502 from the upstream)', async () => {
    const png = await testPicture(256, 256);
    const reply = await edit(png.subarray(0, Math.floor(png.length * 0.8)));
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatchObject({ param: 'image', code: 'invalid_image' });
    expect(errorOf(reply).message).toContain('not a complete image');
  });

  it('answers 400 for a PNG whose header claims 100000x100000', async () => {
    const png = Buffer.from(await testPicture(64, 64));
    png.writeUInt32BE(100_000, 16);
    png.writeUInt32BE(100_000, 20);
    const reply = await edit(png);
    expect(reply.status).toBe(400);
    expect(errorOf(reply).param).toBe('image');
    expect(errorOf(reply).message).toMatch(/at most \d+ pixels/);
  });

  it('answers 400 for a whole PNG whose pixel data does not decode', async () => {
    const png = Buffer.from(await testPicture(64, 64));
    // Scramble the compressed pixels inside IDAT: the chunk structure stays whole.
    const idat = png.indexOf('IDAT');
    for (let i = idat + 8; i < idat + 40; i++) png[i] = (png[i]! * 7 + 13) & 0xff;
    const reply = await edit(png);
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatchObject({ param: 'image', code: 'invalid_image' });
    await stillServing();
  });
});
