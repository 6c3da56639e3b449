import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  completedImageEventSchema,
  errorEventSchema,
  imagesResponseSchema,
  imageStreamEventKind,
  partialImageEventSchema,
} from './imagesApi';
import { statusResponseSchema } from './status';

/** The first issue zod reports, as `path: message`, to check that a refusal says where. */
function refusal(schema: z.ZodType, value: unknown): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error(`accepted ${JSON.stringify(value)}`);
  const [issue] = parsed.error.issues;
  return `${issue?.path.join('.')}: ${issue?.message}`;
}

const USAGE = {
  input_tokens: 50,
  input_tokens_details: { text_tokens: 50, image_tokens: 0 },
  output_tokens: 1056,
  output_tokens_details: { text_tokens: 0, image_tokens: 1056 },
  total_tokens: 1106,
};

describe('images response schema', () => {
  it('reads a reply, absent strings as null', () => {
    expect(
      imagesResponseSchema.parse({
        created: 1,
        data: [{ b64_json: 'QUJD' }],
        output_format: 'png',
        usage: USAGE,
      }),
    ).toEqual({
      created: 1,
      data: [{ b64_json: 'QUJD', revised_prompt: null }],
      size: null,
      quality: null,
      background: null,
      output_format: 'png',
      usage: USAGE,
    });
  });

  it("reads usage by the gateway's rules: without output details every output token is an image token", () => {
    const { usage } = imagesResponseSchema.parse({
      data: [],
      usage: { input_tokens: 50, output_tokens: 1056 },
    });
    expect(usage).toEqual({
      input_tokens: 50,
      input_tokens_details: { text_tokens: 50, image_tokens: 0 },
      output_tokens: 1056,
      output_tokens_details: { text_tokens: 0, image_tokens: 1056 },
      total_tokens: 1106,
    });
    expect(imagesResponseSchema.parse({ data: [] }).usage).toBeNull();
  });

  it('refuses a malformed reply, naming the field', () => {
    expect(refusal(imagesResponseSchema, { usage: USAGE })).toMatch(/^data: .*expected array/);
    expect(refusal(imagesResponseSchema, { data: [{ b64_json: 42 }] })).toMatch(
      /^data\.0\.b64_json: .*expected string/,
    );
    expect(refusal(imagesResponseSchema, { data: [], size: 1024 })).toMatch(/^size: /);
    expect(refusal(imagesResponseSchema, { data: [], usage: 'lots' })).toMatch(/^usage: /);
  });
});

describe('image stream event schemas', () => {
  it('reads partial and completed events, image_index 0 when absent', () => {
    expect(
      partialImageEventSchema.parse({
        type: 'image_edit.partial_image',
        b64_json: 'QUJD',
        partial_image_index: 1,
      }),
    ).toEqual({
      type: 'image_edit.partial_image',
      b64_json: 'QUJD',
      image_index: 0,
      partial_image_index: 1,
      output_format: null,
    });
    const completed = completedImageEventSchema.parse({
      type: 'image_generation.completed',
      b64_json: 'QUJD',
      image_index: 2,
      size: '1024x1024',
      usage: USAGE,
    });
    expect(completed).toMatchObject({ image_index: 2, size: '1024x1024', usage: USAGE });
  });

  it('refuses malformed events, naming the field', () => {
    expect(
      refusal(partialImageEventSchema, {
        type: 'image_generation.partial_image',
        b64_json: 'QUJD',
      }),
    ).toMatch(/^partial_image_index: /);
    expect(
      refusal(completedImageEventSchema, {
        type: 'image_generation.completed',
        image_index: 0,
      }),
    ).toMatch(/^b64_json: /);
    expect(
      refusal(completedImageEventSchema, {
        type: 'image_generation.completed',
        b64_json: 'QUJD',
        image_index: -1,
      }),
    ).toMatch(/^image_index: /);
    expect(refusal(errorEventSchema, { type: 'error' })).toMatch(/^error: /);
  });

  it('knows which schema a type needs, and which types a reader may skip', () => {
    expect(imageStreamEventKind('image_generation.partial_image')).toBe('partial');
    expect(imageStreamEventKind('image_edit.completed')).toBe('completed');
    expect(imageStreamEventKind('error')).toBe('error');
    expect(imageStreamEventKind('response.created')).toBeNull();
  });
});

describe('status response schema', () => {
  it('reads a status and refuses an unknown upstream kind', () => {
    const status = {
      name: 'Atelier',
      version: '0.1.0',
      upstream: { kind: 'simulator', label: 'Offline simulator' },
      address: 'http://127.0.0.1:8787',
    };
    expect(statusResponseSchema.parse(status)).toEqual(status);
    expect(
      refusal(statusResponseSchema, { ...status, upstream: { kind: 'cloud', label: 'x' } }),
    ).toMatch(/^upstream\.kind: /);
  });
});
