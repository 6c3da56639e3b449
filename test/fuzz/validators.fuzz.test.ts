import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/gateway/core/errors';
import { parseEditJson } from '../../src/gateway/validation/editRequest';
import { parseGenerationRequest } from '../../src/gateway/validation/generationRequest';
import { IMAGE_PARAMETERS } from '../../src/gateway/validation/imageOptions';
import { parseResponsesRequest } from '../../src/gateway/validation/responsesRequest';
import { fuzz, FUZZ_TIMEOUT_MS } from './settings';

/**
 * The JSON bodies of the endpoints, as their validators see them (after JSON.parse). The property
 * is the gateway's promise: a typed request, or a 4xx ApiError whose `param` names a field of
 * the body (or, for a body that is not an object, no field). Never another exception.
 */

const TEXT_MODELS = ['agent-model-1'];

/** Values that pass as numbers or strings but are not what the field wants. */
const awkwardScalar = fc.oneof(
  fc.constantFrom(1e300, -0, 2.5, Number.MAX_SAFE_INTEGER + 2, 0, 1, 3, 11, -1, 100, 101),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('1024x1024', 'auto', '3840x2160', '17x17', '1e3', 'png', 'jpeg', 'webp', 'low'),
  fc.constantFrom('image-model-2', 'agent-model-1', 'gpt-x', '', ' ', '\u0000'),
);

const anyJson = fc.jsonValue({ maxDepth: 4 });

// Every documented image parameter, plus a misspelt one and the edit-only fields.
const IMAGE_FIELDS = [...IMAGE_PARAMETERS, 'quailty', 'images', 'mask'];

function bodyOf(fields: readonly string[]) {
  return fc.dictionary(
    fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 12 })),
    fc.oneof(awkwardScalar, anyJson),
    { maxKeys: 8 },
  );
}

const anyBody = fc.oneof(
  { weight: 6, arbitrary: bodyOf(IMAGE_FIELDS) },
  { weight: 1, arbitrary: anyJson },
);

/** The field a param such as `images[0].image_url` or `tools[1].size` belongs to. */
function fieldOf(param: string): string {
  return /^[^[.]*/.exec(param)![0];
}

/** Required fields: a 400 may name one that the body lacks. */
const REQUIRED = ['model', 'prompt', 'images', 'input'];

function holds(parse: (body: unknown) => unknown, body: unknown): void {
  try {
    parse(body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.status).toBeGreaterThanOrEqual(400);
    expect(error.status).toBeLessThan(500);
    expect(error.message.length).toBeGreaterThan(0);
    if (error.param !== null && body !== null && typeof body === 'object' && !Array.isArray(body)) {
      const keys = Object.keys(body);
      const named =
        keys.includes(error.param) ||
        keys.includes(fieldOf(error.param)) ||
        REQUIRED.includes(error.param);
      expect(named, `param ${error.param} of ${error.message}`).toBe(true);
    }
  }
}

describe('validators of the JSON endpoints', () => {
  it(
    'POST /v1/images/generations: a request or a 4xx naming a field',
    { timeout: FUZZ_TIMEOUT_MS },
    () => {
      fc.assert(
        fc.property(anyBody, (body) => holds(parseGenerationRequest, body)),
        fuzz(400),
      );
    },
  );

  it(
    'POST /v1/images/generations with valid fields and one awkward value',
    { timeout: FUZZ_TIMEOUT_MS },
    () => {
      const base = { model: 'image-model-2', prompt: 'a boat' };
      fc.assert(
        fc.property(fc.constantFrom(...IMAGE_FIELDS), awkwardScalar, (field, value) =>
          holds(parseGenerationRequest, { ...base, [field]: value }),
        ),
        fuzz(400),
      );
    },
  );

  it(
    'POST /v1/images/edits (JSON): a request or a 4xx naming a field',
    { timeout: FUZZ_TIMEOUT_MS },
    () => {
      const image = fc.oneof(
        fc.record({
          image_url: fc.oneof(
            awkwardScalar,
            fc.constantFrom(
              'data:image/png;base64,',
              'data:image/png;base64,iVBORw0KGgo=',
              'https://x/y.png',
              'data:;base64,@@',
            ),
          ),
        }),
        anyJson,
      );
      const body = fc.record(
        {
          model: awkwardScalar,
          prompt: awkwardScalar,
          images: fc.oneof(fc.array(image, { maxLength: 18 }), anyJson),
          mask: fc.oneof(image, anyJson),
        },
        { requiredKeys: [] },
      );
      fc.assert(
        fc.property(fc.oneof(body, anyBody), (b) => holds(parseEditJson, b)),
        fuzz(400),
      );
    },
  );

  it('POST /v1/responses: a request or a 4xx naming a field', { timeout: FUZZ_TIMEOUT_MS }, () => {
    const tool = fc.oneof(
      fc.dictionary(
        fc.constantFrom(
          'type',
          'model',
          'size',
          'quality',
          'n',
          'output_format',
          'output_compression',
          'background',
          'moderation',
          'partial_images',
        ),
        fc.oneof(awkwardScalar, fc.constant('image_generation')),
        { maxKeys: 6 },
      ),
      anyJson,
    );
    const body = fc.record(
      {
        model: fc.oneof(awkwardScalar, fc.constant('agent-model-1')),
        input: fc.oneof(fc.string({ maxLength: 50 }), anyJson),
        tools: fc.oneof(fc.array(tool, { maxLength: 4 }), anyJson),
        stream: awkwardScalar,
        metadata: anyJson,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(body, anyBody), (b) =>
        holds((value) => parseResponsesRequest(value, TEXT_MODELS), b),
      ),
      fuzz(400),
    );
  });

  it(
    'POST /v1/responses: nesting of any depth is a request or a 400 naming the field',
    { timeout: FUZZ_TIMEOUT_MS },
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 5_000 }),
          fc.constantFrom('input', 'metadata', 'tools', 'text'),
          (depth, field) => {
            let value: unknown = 'x';
            for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
            holds((b) => parseResponsesRequest(b, TEXT_MODELS), {
              model: 'agent-model-1',
              input: 'hi',
              [field]: value,
            });
          },
        ),
        fuzz(60),
      );
    },
  );
});
