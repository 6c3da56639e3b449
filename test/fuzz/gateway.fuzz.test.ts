import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { fuzz, FUZZ_TIMEOUT_MS } from './settings';

/**
 * Random bodies, raw bytes included, against a real gateway over real sockets: every answer is a
 * 2xx or a 4xx with an OpenAI-style error, never a 5xx, and the gateway keeps serving.
 */

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

function post(
  path: string,
  contentType: string,
  body: Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: t.gateway.port,
        path,
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${t.key}`,
          'content-type': contentType,
          'content-length': String(body.length),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const scalar = fc.oneof(
  fc.constantFrom(1e300, 2.5, -0, 1, 2, 11, true, null, 'low', 'auto', '1024x1024', 'png', 'webp'),
  fc.constantFrom('image-model-2', 'agent-model-1', 'a boat', 'image_generation'),
  fc.string({ maxLength: 20 }),
);
const field = fc.constantFrom(
  'model',
  'prompt',
  'n',
  'size',
  'quality',
  'output_format',
  'stream',
  'input',
  'tools',
  'images',
  'metadata',
  'partial_images',
  'user',
);
const jsonBody = fc
  .dictionary(field, fc.oneof(scalar, fc.jsonValue({ maxDepth: 3 })), { maxKeys: 7 })
  .map((value) => Buffer.from(JSON.stringify(value)));
const rawBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  jsonBody.map((b) => b.subarray(0, Math.floor(b.length / 2))),
);

describe('the gateway under random bodies', () => {
  it(
    'answers every body with a 2xx or a 4xx naming what is wrong',
    { timeout: FUZZ_TIMEOUT_MS },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('/v1/images/generations', '/v1/images/edits', '/v1/responses'),
          fc.oneof({ weight: 3, arbitrary: jsonBody }, { weight: 1, arbitrary: rawBody }),
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'text/plain',
            'multipart/form-data; boundary=x',
          ),
          async (path, body, type) => {
            const res = await post(path, type, body);
            expect(res.status, `${path} ${res.body.slice(0, 300)}`).toBeLessThan(500);
            if (res.status >= 400) {
              const error = (JSON.parse(res.body) as { error: { message: string } }).error;
              expect(error.message.length).toBeGreaterThan(0);
            }
          },
        ),
        fuzz(60),
      );
      const models = await fetch(`${t.url}/v1/models`, {
        headers: { authorization: `Bearer ${t.key}` },
      });
      expect(models.status).toBe(200);
    },
  );
});
