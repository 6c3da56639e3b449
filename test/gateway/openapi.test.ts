import SwaggerParser from '@apidevtools/swagger-parser';
import { validate as readmeValidate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, studioLogin, type TestGateway } from '../support/gateway';
import { replyProblem } from '../support/openapiReplies';

/**
 * The OpenAPI document served at /v1/openapi.json, checked against real responses of a real
 * gateway with a JSON Schema 2020-12 validator: what a client generator reads is what it gets.
 */

let t: TestGateway;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
};
let ajv: Ajv2020;

beforeAll(async () => {
  t = await startTestGateway();
  const res = await fetch(`${t.url}/v1/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as typeof doc;
  ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'atelier', components: doc.components }, 'atelier');
});
afterAll(async () => {
  await t.close();
});

function expectValid(schema: string, value: unknown): void {
  const validate = ajv.getSchema(`atelier#/components/schemas/${schema}`);
  if (!validate) throw new Error(`no schema ${schema}`);
  const ok = validate(value);
  expect(ok, `${schema}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

function expectInvalid(schema: string, value: unknown): void {
  expect(ajv.getSchema(`atelier#/components/schemas/${schema}`)!(value)).toBe(false);
}

async function post(path: string, body: unknown) {
  const res = await fetch(`${t.url}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { res, json: (await res.json()) as unknown };
}

describe('/v1/openapi.json', () => {
  it('is valid OpenAPI 3.1 for both common parsers (no 3.2 fields such as itemSchema)', async () => {
    const readme = await readmeValidate(structuredClone(doc) as never);
    expect(readme.valid, JSON.stringify(readme)).toBe(true);
    // Throws with every schema error it finds.
    await SwaggerParser.validate(structuredClone(doc) as never);
    expect(JSON.stringify(doc)).not.toContain('itemSchema');
  });

  it("lists the statuses every route can answer, and a key limit's 429 body", () => {
    const generations = doc.paths['/v1/images/generations']!.post!.responses;
    for (const status of ['400', '401', '403', '404', '408', '413', '415', '429', '502', '503'])
      expect(Object.keys(generations)).toContain(status);
    const limited = {
      error: {
        message: 'Budget exceeded',
        type: 'rate_limit_error',
        param: null,
        code: 'budget_exceeded',
        limit: {
          name: 'budget',
          period: 'month',
          unit: 'usd',
          limit: 0.05,
          used: 0.05,
          requested: 0.0082,
          resets_at: '2026-12-01T00:00:00.000Z',
        },
      },
    };
    expectValid('Error', limited);
    expect(replyProblem('POST', '/v1/images/generations', 429, 'application/json', limited)).toBe(
      null,
    );
    // The check can fail: a field the document does not have, a status it does not list.
    const odd = { error: { ...limited.error, extra: 1 } };
    expect(replyProblem('POST', '/v1/images/generations', 429, 'application/json', odd)).toMatch(
      /additional properties/,
    );
    expect(replyProblem('GET', '/v1/models', 418, 'application/json', limited)).toMatch(
      /does not list/,
    );
  });

  it('is OpenAPI 3.1, needs no key, and describes every /v1 endpoint', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/v1'))
        .sort(),
    ).toEqual([
      '/v1/images/edits',
      '/v1/images/files/{name}',
      '/v1/images/generations',
      '/v1/models',
      '/v1/models/{model}',
      '/v1/openapi.json',
      '/v1/responses',
    ]);
    for (const schema of Object.keys(doc.components.schemas)) {
      expect(ajv.getSchema(`atelier#/components/schemas/${schema}`), schema).toBeTruthy();
    }
  });

  it('describes the real generation replies: base64, URLs and streamed events', async () => {
    const request = {
      model: 'image-model-2',
      prompt: 'a green bottle',
      size: '1024x1536',
      quality: 'low',
      output_format: 'jpeg',
      output_compression: 80,
      n: 2,
    };
    expectValid('ImageGenerationRequest', request);
    const b64 = await post('/images/generations', request);
    expect(b64.res.status).toBe(200);
    expectValid('ImagesResponse', b64.json);

    const url = await post('/images/generations', { ...request, response_format: 'url' });
    expect(url.res.status).toBe(200);
    expectValid('ImagesResponse', url.json);

    const stream = await t.client.images.generate({
      ...request,
      n: 1,
      stream: true,
      partial_images: 1,
    } as never);
    const types: string[] = [];
    for await (const event of stream as unknown as AsyncIterable<{ type: string }>) {
      types.push(event.type);
      expectValid(
        event.type.endsWith('partial_image') ? 'PartialImageEvent' : 'CompletedImageEvent',
        event,
      );
    }
    expect(types).toEqual(['image_generation.partial_image', 'image_generation.completed']);
  });

  it('describes the real errors, and its request schema refuses what the gateway refuses', async () => {
    const bad = { model: 'image-model-2', prompt: 'x', size: '01024x1024' };
    expectInvalid('ImageGenerationRequest', bad);
    const refused = await post('/images/generations', bad);
    expect(refused.res.status).toBe(400);
    expectValid('Error', refused.json);

    const unknown = { model: 'image-model-2', prompt: 'x', quailty: 'high' };
    expectInvalid('ImageGenerationRequest', unknown);
    expect((await post('/images/generations', unknown)).res.status).toBe(400);

    const noKey = await fetch(`${t.url}/v1/models`);
    expect(noKey.status).toBe(401);
    expectValid('Error', await noKey.json());
  });

  it('describes the real models, edits and Responses replies', async () => {
    const models = await t.client.models.list();
    expectValid('ModelList', { object: 'list', data: models.data });
    const raw = await fetch(`${t.url}/v1/models/image-model-2`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    expectValid('Model', await raw.json());

    const source = await t.client.images.generate({ model: 'image-model-2', prompt: 'a wall' });
    const edit = await t.client.images.edit({
      model: 'image-model-2',
      prompt: 'add a window',
      image: await OpenAI.toFile(Buffer.from(source.data![0]!.b64_json!, 'base64'), 'wall.png', {
        type: 'image/png',
      }),
    });
    expectValid('ImagesResponse', edit);

    const request = {
      model: 'agent-model-1',
      input: 'Draw a yellow tram.',
      tools: [{ type: 'image_generation', size: '1024x1024', quality: 'low' }],
    };
    expectValid('ResponsesRequest', request);
    const reply = await post('/responses', request);
    expect(reply.res.status).toBe(200);
    expectValid('Response', reply.json);
  });
});

describe('the admin API in the same document', () => {
  /** The JSON answer schema the document gives for one admin route. */
  function answerSchema(method: string, path: string) {
    const operation = (doc.paths[`/api/admin${path}`] as Record<string, unknown>)?.[method] as
      { responses: Record<string, { content: Record<string, { schema: object }> }> } | undefined;
    if (!operation) throw new Error(`no ${method} /api/admin${path} in the document`);
    return ajv.compile(operation.responses['200']!.content['application/json']!.schema);
  }

  it('describes the real answers of the studio session', async () => {
    const studio = await studioLogin(t);
    await t.client.images.generate({ model: 'image-model-2', prompt: 'a lamp' });
    const created = await studio.json('/api/admin/keys', {
      method: 'POST',
      body: { name: 'from-openapi-test' },
    });
    const checks: Array<[string, string, unknown]> = [
      ['get', '/session', await studio.json('/api/admin/session')],
      ['get', '/keys', await studio.json('/api/admin/keys')],
      ['post', '/keys', created],
      ['get', '/accounts', await studio.json('/api/admin/accounts')],
      ['get', '/settings', await studio.json('/api/admin/settings')],
      ['get', '/prices', await studio.json('/api/admin/prices')],
      ['get', '/usage', await studio.json('/api/admin/usage?limit=5')],
      ['get', '/usage/totals', await studio.json('/api/admin/usage/totals?groupBy=model')],
      ['get', '/images', await studio.json('/api/admin/images?limit=5')],
    ];
    for (const [method, path, answer] of checks) {
      const validate = answerSchema(method, path);
      expect(validate(answer), `${method} ${path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    // Not vacuous: a usage page without its records is refused.
    expect(answerSchema('get', '/usage')({ total: 1 })).toBe(false);
  });
});
