import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/gateway/core/errors';
import { parseEditMultipart } from '../../src/gateway/validation/editRequest';
import { fuzz, FUZZ_TIMEOUT_MS } from './settings';

/**
 * The multipart edit parser on a real node:http server, fed raw bytes over real sockets: every
 * body gets a 200 (a parsed edit) or the parser's own 4xx, never a 500, a hang or a crash.
 */

let server: http.Server;
let port: number;
let png: Buffer;

beforeAll(async () => {
  png = await sharp({ create: { width: 4, height: 4, channels: 4, background: '#08f8' } })
    .png()
    .toBuffer();
  server = http.createServer((req, res) => {
    parseEditMultipart(req).then(
      () => res.writeHead(200).end('ok'),
      (error: unknown) => {
        const status = error instanceof ApiError ? error.status : 500;
        res.writeHead(status, { 'content-type': 'text/plain' }).end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends exactly `body` with its length; resolves with the status (0: the connection broke). */
function send(body: Buffer, boundary: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/images/edits',
        agent: false,
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(body.length),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    // A reply before the body is all sent may reset the upload: that is not a server fault.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve(0) : reject(error),
    );
    req.end(body);
  });
}

interface Part {
  name: string;
  filename?: string;
  headers?: string;
  body: Buffer;
}

function form(parts: Part[], boundary: string, close = true): Buffer {
  const out: Buffer[] = [];
  for (const part of parts) {
    const file = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    out.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file}\r\n` +
          `${part.headers ?? ''}\r\n`,
      ),
      part.body,
      Buffer.from('\r\n'),
    );
  }
  if (close) out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}

const BOUNDARY = 'fuzzBoundary42';

describe('multipart edits under fuzzing', () => {
  it(
    'answers 200 or 400 for a small valid form cut at every byte',
    { timeout: FUZZ_TIMEOUT_MS },
    async () => {
      const whole = form(
        [
          { name: 'model', body: Buffer.from('image-model-2') },
          { name: 'prompt', body: Buffer.from('blue') },
          { name: 'image', filename: 'a.png', headers: 'Content-Type: image/png\r\n', body: png },
        ],
        BOUNDARY,
      );
      expect(await send(whole, BOUNDARY)).toBe(200);
      const statuses = new Map<number, number>();
      for (let cut = 0; cut < whole.length; cut++) {
        const status = await send(whole.subarray(0, cut), BOUNDARY);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect([0, 200, 400], `cut at ${cut}`).toContain(status);
      }
      // Nearly every cut is a 400; only the last few (inside the closing line) still parse.
      expect(statuses.get(400) ?? 0).toBeGreaterThan(whole.length * 0.9);
    },
  );

  it(
    'answers 200 or a 4xx for random forms: names, boundaries, huge headers, many parts',
    { timeout: FUZZ_TIMEOUT_MS },
    async () => {
      const boundaryChar = fc.constantFrom(...'abcXYZ0129-_'.split(''));
      const boundary = fc
        .array(boundaryChar, { minLength: 1, maxLength: 70 })
        .map((c) => c.join(''));
      const name = fc.oneof(
        fc.constantFrom(
          'model',
          'prompt',
          'image',
          'image[]',
          'image[0]',
          'image[9999]',
          'mask',
          'n',
          'size',
          'stream',
          'user',
          'quality',
        ),
        fc.string({ maxLength: 20 }).map((s) => s.replace(/["\r\n]/g, '')),
      );
      const body = fc.oneof(
        fc.constant(png),
        fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
        fc
          .constantFrom('image-model-2', 'auto', '1024x1024', '2', '1e300', 'true', '')
          .map((s) => Buffer.from(s)),
        fc.integer({ min: 0, max: png.length }).map((n) => png.subarray(0, n)),
      );
      const part = fc.record(
        {
          name,
          filename: fc.string({ maxLength: 30 }).map((s) => s.replace(/["\r\n]/g, '')),
          headers: fc.oneof(
            fc.constant(''),
            fc.integer({ min: 1, max: 90_000 }).map((n) => `X-Big: ${'h'.repeat(n)}\r\n`),
            fc.constant('Content-Type: image/png\r\n'),
          ),
          body,
        },
        { requiredKeys: ['name', 'body'] },
      );
      const parts = fc.oneof(
        { weight: 4, arbitrary: fc.array(part, { maxLength: 8 }) },
        { weight: 1, arbitrary: fc.array(part, { minLength: 100, maxLength: 200 }) },
      );
      await fc.assert(
        fc.asyncProperty(
          boundary,
          parts,
          fc.boolean(),
          fc.nat(),
          async (b, list, close, cutSeed) => {
            const bytes = form(list, b, close);
            const cut = cutSeed % 4 === 0 ? bytes.subarray(0, cutSeed % (bytes.length + 1)) : bytes;
            const status = await send(cut, b);
            expect(
              status === 0 || status === 200 || (status >= 400 && status < 500),
              `status ${status}`,
            ).toBe(true);
          },
        ),
        fuzz(60),
      );
    },
  );
});
