import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPicture } from '../support/images';
import {
  startTestGateway,
  studioLogin,
  type StudioClient,
  type TestGateway,
} from '../support/gateway';

/**
 * Every name an object inherits from Object.prototype, sent as the value of every field whose
 * values come from a fixed set, on every endpoint that has one. A table looked up with `in` or
 * `table[value]` finds these names on any plain object (issue 23 item 5: `quality: "constructor"`
 * was accepted and billed); each must be a 400 naming the field, and nothing else.
 */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

let t: TestGateway;
let studio: StudioClient;
let picture: Buffer;
beforeAll(async () => {
  t = await startTestGateway();
  studio = await studioLogin(t);
  picture = await testPicture(64, 64);
});
afterAll(async () => {
  await t.close();
});

interface Reply {
  status: number;
  param: unknown;
}

async function reply(res: Response): Promise<Reply> {
  const body = (await res.json()) as { error?: { param?: unknown } };
  return { status: res.status, param: body.error?.param };
}

const bearer = () => ({ authorization: `Bearer ${t.key}` });

function postJson(path: string, body: unknown): Promise<Reply> {
  return fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { ...bearer(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(reply);
}

/** An endpoint, the fields of it whose values are a fixed set, and how to send one bad value. */
interface Surface {
  name: string;
  fields: readonly string[];
  send(field: string, value: string): Promise<Reply>;
  /** The `param` the 400 must name. */
  param(field: string): string;
}

const IMAGE_ENUM_FIELDS = [
  'model',
  'quality',
  'output_format',
  'background',
  'moderation',
  'response_format',
  'style',
  'size',
] as const;

const SURFACES: Surface[] = [
  {
    name: 'POST /v1/images/generations (JSON)',
    fields: IMAGE_ENUM_FIELDS,
    send: (field, value) =>
      postJson('/v1/images/generations', {
        model: 'image-model-2',
        prompt: 'a cat',
        [field]: value,
      }),
    param: (field) => field,
  },
  {
    name: 'POST /v1/images/edits (multipart)',
    fields: IMAGE_ENUM_FIELDS,
    send: (field, value) => {
      const form = new FormData();
      form.append('model', 'image-model-2');
      form.append('prompt', 'a cat');
      form.set(field, value);
      form.append('image[]', new Blob([picture], { type: 'image/png' }), 'a.png');
      return fetch(`${t.url}/v1/images/edits`, {
        method: 'POST',
        headers: bearer(),
        body: form,
      }).then(reply);
    },
    param: (field) => field,
  },
  {
    name: 'POST /v1/images/edits (JSON)',
    fields: IMAGE_ENUM_FIELDS,
    send: (field, value) =>
      postJson('/v1/images/edits', {
        model: 'image-model-2',
        prompt: 'a cat',
        images: [{ image_url: `data:image/png;base64,${picture.toString('base64')}` }],
        [field]: value,
      }),
    param: (field) => field,
  },
  {
    name: 'POST /v1/responses (image tool)',
    fields: ['model', 'quality', 'output_format', 'background', 'moderation', 'size'],
    send: (field, value) =>
      postJson('/v1/responses', {
        model: 'agent-model-1',
        input: 'a cat',
        tools: [{ type: 'image_generation', [field]: value }],
      }),
    param: (field) => `tools[0].${field}`,
  },
  {
    name: 'POST /v1/responses (main model)',
    fields: ['model'],
    send: (_field, value) =>
      postJson('/v1/responses', {
        model: value,
        input: 'a cat',
        tools: [{ type: 'image_generation' }],
      }),
    param: () => 'model',
  },
  {
    name: 'PUT /api/admin/settings',
    fields: ['contentFilter', 'serverHost'],
    send: (field, value) =>
      studio
        .fetch('/api/admin/settings', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ [field]: value }),
        })
        .then(reply),
    param: (field) => field,
  },
  {
    name: 'POST /api/admin/keys',
    fields: ['budgetPeriod'],
    send: (field, value) =>
      studio
        .fetch('/api/admin/keys', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'k', budgetMicros: 1000, [field]: value }),
        })
        .then(reply),
    param: (field) => field,
  },
  {
    name: 'POST /api/admin/accounts',
    fields: ['kind'],
    send: (field, value) =>
      studio
        .fetch('/api/admin/accounts', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'a', [field]: value }),
        })
        .then(reply),
    param: (field) => field,
  },
  ...(
    [
      ['/api/admin/usage', ['status']],
      ['/api/admin/usage.csv', ['status']],
      ['/api/admin/usage/totals', ['groupBy']],
      ['/api/admin/usage/performance', ['groupBy', 'bucket']],
      ['/api/admin/images', ['source', 'favourite']],
    ] as const
  ).map(([path, fields]): Surface => ({
    name: `GET ${path}`,
    fields,
    send: (field, value) =>
      studio.fetch(`${path}?${new URLSearchParams({ [field]: value }).toString()}`).then(reply),
    param: (field) => field,
  })),
];

describe('Object.prototype names as values of fixed-set fields', () => {
  for (const surface of SURFACES) {
    it(`${surface.name}: a 400 naming the field, for every name and field`, async () => {
      // Every pair as an example, then random ones over the same space (fast-check shrinks a failure
      // to the one pair at fault).
      const examples = surface.fields.flatMap((field) =>
        PROTOTYPE_NAMES.map((name) => [field, name] as [string, string]),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...surface.fields),
          fc.constantFrom(...PROTOTYPE_NAMES),
          async (field, name) => {
            const answer = await surface.send(field, name);
            expect(answer).toEqual({ status: 400, param: surface.param(field) });
          },
        ),
        { examples, numRuns: 20 },
      );
    });
  }

  it('leaves nothing behind: no usage row billed, no key or account made', () => {
    const billed = t.db
      .prepare('SELECT COUNT(*) FROM usage_records WHERE cost_micros > 0')
      .pluck()
      .get() as number;
    expect(billed).toBe(0);
    expect(t.db.prepare("SELECT COUNT(*) FROM api_keys WHERE name = 'k'").pluck().get()).toBe(0);
  });
});
