import { z } from 'zod';
import {
  BACKGROUNDS,
  LIMITS,
  MODERATIONS,
  OUTPUT_FORMATS,
  QUALITIES,
} from '../../shared/imageParams';
import { IMAGE_MODELS } from '../../shared/models';
import { checkSize, SIZE_LIMITS } from '../../shared/sizeRules';
import { MAX_PROMPT_CHARS, MAX_USER_CHARS } from '../validation/imageOptions';

/**
 * The /v1 request and response bodies as zod schemas, built from the constants the request
 * parsers use (value sets, limits, the size rules). The parsers themselves are hand-written, for
 * messages that name the parameter and the rule; `v1Schemas.test.ts` checks on generated bodies
 * that each schema accepts exactly what its parser accepts. The OpenAPI document is generated from
 * these (document.ts).
 */

/** JSON Schema can state only the shape; the size rules are in the description and the refine. */
export const sizeSchema = z
  .string()
  .regex(/^(auto|[1-9][0-9]{0,4}x[1-9][0-9]{0,4})$/)
  .refine((size) => checkSize(size).ok, { message: 'size breaks a rule of spec 8.1' })
  .meta({
    description:
      `'auto' or '<width>x<height>' in canonical digits (no leading zeros, signs or spaces): each ` +
      `edge at most ${SIZE_LIMITS.maxEdge} px and a multiple of ${SIZE_LIMITS.multipleOf}, long:short ` +
      `at most ${SIZE_LIMITS.maxAspect}:1, total pixels from ${SIZE_LIMITS.minPixels} to ` +
      `${SIZE_LIMITS.maxPixels}.`,
    examples: ['1024x1024', '1536x1024', '3840x2160', 'auto'],
  });

const prompt = z
  .string()
  .refine((p) => p.trim() !== '', { message: 'prompt must not be empty' })
  .refine((p) => p.length <= MAX_PROMPT_CHARS || [...p].length <= MAX_PROMPT_CHARS, {
    message: `at most ${MAX_PROMPT_CHARS} characters`,
  })
  .meta({ description: `What to draw; not blank, at most ${MAX_PROMPT_CHARS} characters.` });

const DALL_E_QUALITIES = ['standard', 'hd'] as const;

/** The scalar parameters of generations and edits; explicit null means absent (SDKs send it). */
export const imageParameters = {
  model: z.enum(IMAGE_MODELS),
  prompt,
  n: z.int().min(LIMITS.nMin).max(LIMITS.nMax).nullish(),
  size: sizeSchema.nullish(),
  quality: z
    .enum([...QUALITIES, ...DALL_E_QUALITIES])
    .nullish()
    .meta({
      description:
        "DALL-E 3's 'standard' and 'hd' are read as 'medium' and 'high' (with an x-atelier-warning header).",
    }),
  output_format: z.enum(OUTPUT_FORMATS).nullish(),
  output_compression: z
    .int()
    .min(LIMITS.compressionMin)
    .max(LIMITS.compressionMax)
    .nullish()
    .meta({ description: 'Only with output_format jpeg or webp.' }),
  background: z
    .enum(BACKGROUNDS)
    .nullish()
    .meta({ description: "'transparent' is not supported by the model (400)." }),
  moderation: z.enum(MODERATIONS).nullish(),
  stream: z.boolean().nullish(),
  partial_images: z
    .int()
    .min(LIMITS.partialImagesMin)
    .max(LIMITS.partialImagesMax)
    .nullish()
    .meta({ description: 'Above 0 only with stream: true.' }),
  user: z.string().max(MAX_USER_CHARS).nullish(),
  response_format: z.enum(['b64_json', 'url']).nullish().meta({
    description:
      "'url': data[].url is a signed URL on this gateway, valid for an hour and fetched without the key. Not with stream: true.",
  }),
  style: z.enum(['vivid', 'natural']).nullish().meta({
    description: 'DALL-E 3 only: accepted and ignored, with an x-atelier-warning header.',
  }),
  input_fidelity: z.null().optional().meta({
    description: 'Must not be sent: inputs are processed at high fidelity automatically.',
  }),
};

/** The rules between parameters, which the JSON Schema states only in descriptions. */
function crossFieldRules(body: {
  stream?: boolean | null;
  partial_images?: number | null;
  output_format?: string | null;
  output_compression?: number | null;
  response_format?: string | null;
}): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  if ((body.partial_images ?? 0) > 0 && body.stream !== true)
    issues.push({ path: 'partial_images', message: 'needs stream: true' });
  if (
    body.output_compression !== undefined &&
    body.output_compression !== null &&
    (body.output_format ?? 'png') === 'png'
  )
    issues.push({ path: 'output_compression', message: 'only for jpeg and webp' });
  if (body.response_format === 'url' && body.stream === true)
    issues.push({ path: 'response_format', message: "'url' cannot be streamed" });
  return issues;
}

export const imageGenerationRequestSchema = z
  .strictObject(imageParameters)
  .superRefine((body, ctx) => {
    for (const issue of crossFieldRules(body))
      ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
  })
  .meta({ description: 'POST /v1/images/generations (spec 4.1).' });

const file = z.string().meta({ format: 'binary' });

export const imageEditMultipartSchema = z
  .object({
    ...imageParameters,
    'image[]': z
      .array(file)
      .min(1)
      .max(LIMITS.maxInputImages)
      .meta({ description: 'Also accepted as image or image[N]; each under 50 MiB.' }),
    mask: file.optional().meta({ description: 'PNG with alpha, same size as the first image.' }),
  })
  .meta({ description: 'POST /v1/images/edits as multipart/form-data (spec 4.2).' });

export const imageEditJsonSchema = z
  .object({
    ...imageParameters,
    images: z
      .array(z.object({ image_url: z.string().meta({ description: 'A data: URL.' }) }))
      .min(1)
      .max(LIMITS.maxInputImages),
    mask: z.object({ image_url: z.string() }).nullish(),
  })
  .meta({ description: 'POST /v1/images/edits as JSON, images as data URLs.' });

export const usageSchema = z.object({
  input_tokens: z.int(),
  input_tokens_details: z.object({ text_tokens: z.int(), image_tokens: z.int() }),
  output_tokens: z.int(),
  output_tokens_details: z.object({ text_tokens: z.int(), image_tokens: z.int() }),
  total_tokens: z.int(),
});

export const imagesResponseSchema = z
  .object({
    created: z.int(),
    data: z.array(
      z.object({
        b64_json: z.string().optional(),
        url: z.string().optional(),
        revised_prompt: z.string().optional(),
      }),
    ),
    background: z.string(),
    model: z.string(),
    output_format: z.enum(OUTPUT_FORMATS),
    quality: z.string(),
    size: z.string().meta({ description: 'The size delivered.' }),
    usage: usageSchema,
  })
  .meta({ description: 'Spec 2.1; data[].url instead of b64_json with response_format url.' });

const imageEventFields = {
  b64_json: z.string(),
  created_at: z.int(),
  size: z.string(),
  quality: z.string(),
  background: z.string(),
  output_format: z.enum(OUTPUT_FORMATS),
  image_index: z.int().optional().meta({ description: 'With n > 1: which image (0-based).' }),
};

export const partialImageEventSchema = z.object({
  type: z.enum(['image_generation.partial_image', 'image_edit.partial_image']),
  partial_image_index: z.int(),
  ...imageEventFields,
});

export const completedImageEventSchema = z.object({
  type: z.enum(['image_generation.completed', 'image_edit.completed']),
  ...imageEventFields,
  usage: usageSchema,
});

/** `error.limit` of a 429 refused by one of the key's own limits (limits/limitErrors.ts). */
const limitDetailSchema = z.object({
  name: z.enum(['budget', 'requests_per_minute', 'images_per_day']),
  period: z.enum(['day', 'month', 'total', 'minute']),
  unit: z.enum(['usd', 'requests', 'images']),
  limit: z.number(),
  used: z.number(),
  requested: z.number(),
  resets_at: z.string().nullable(),
});

export const errorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
    limit: limitDetailSchema.optional(),
  }),
});

/** GET /healthz (http/health.ts). */
export const healthSchema = z.object({
  status: z.enum(['ok', 'draining', 'unavailable']),
  database: z.enum(['reachable', 'unreachable']),
  migrations: z.enum(['current', 'behind', 'ahead', 'unknown']),
  accepting: z.boolean(),
});

export const errorEventSchema = errorSchema.extend({ type: z.literal('error') });

export const modelSchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.int(),
  owned_by: z.string(),
});

export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelSchema) });

export const imageToolSchema = z
  .looseObject({
    type: z.literal('image_generation'),
    model: z.enum(IMAGE_MODELS).nullish(),
    quality: z.enum(QUALITIES).nullish(),
    size: sizeSchema.nullish(),
    output_format: z.enum(OUTPUT_FORMATS).nullish(),
    output_compression: z.int().min(LIMITS.compressionMin).max(LIMITS.compressionMax).nullish(),
    background: z.enum(BACKGROUNDS).nullish(),
    moderation: z.enum(MODERATIONS).nullish(),
    partial_images: z.int().min(LIMITS.partialImagesMin).max(LIMITS.partialImagesMax).nullish(),
  })
  .meta({ description: 'The image_generation tool (spec 4.3); at most one, without n.' });

export const responsesRequestSchema = z
  .looseObject({
    model: z
      .string()
      .meta({ description: 'A text/agent model from /v1/models, not an image model.' }),
    input: z.union([z.string(), z.array(z.looseObject({}))]),
    tools: z.array(z.union([imageToolSchema, z.looseObject({ type: z.string() })])).nullish(),
    stream: z.boolean().nullish(),
  })
  .meta({
    description:
      'POST /v1/responses (spec 4.3). Other Responses fields are passed to the upstream as sent.',
  });

export const responsesResponseSchema = z
  .looseObject({
    id: z.string(),
    object: z.literal('response'),
    model: z.string(),
    output: z.array(z.looseObject({ type: z.string() })),
  })
  .meta({
    description:
      "The upstream's Responses object; image_generation_call items carry the image in result.",
  });
