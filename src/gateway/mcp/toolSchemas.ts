import { z } from 'zod';
import { imageParameters } from '../openapi/v1Schemas';

/**
 * The MCP tools' inputs, built from the same zod fields as the /v1 bodies (openapi/v1Schemas.ts,
 * which its test keeps equal to the /v1 parsers). They are advertised as JSON Schema; the values
 * are checked by /v1 itself, since every tool call is a /v1 request: a bad value gets the same
 * message as on /v1, naming the same parameter.
 */
const { prompt, n, size, quality, output_format, output_compression, background, moderation } =
  imageParameters;

const imageOptions = {
  prompt,
  model: imageParameters.model.optional().meta({ description: 'Default: image-model-2.' }),
  n,
  size,
  quality,
  output_format,
  output_compression,
  background,
  moderation,
  partial_images: imageParameters.partial_images.meta({
    description:
      'Partial images to stream (0-3): each is announced as a progress notification when the caller sent a progressToken.',
  }),
};

/** An input image: one of a gallery image id, a file path the user named, or base64 bytes. */
export const imageInputSchema = z
  .object({
    gallery_id: z.string().optional().meta({
      description: 'An image of the gallery made with this key (find_images lists them).',
    }),
    path: z
      .string()
      .optional()
      .meta({ description: 'A PNG, JPEG or WebP file the user named (absolute path).' }),
    base64: z.string().optional().meta({ description: 'The image bytes, base64.' }),
  })
  .meta({ description: 'Exactly one of gallery_id, path or base64.' });

export const generateImageInput = z.object(imageOptions);

export const editImageInput = z.object({
  ...imageOptions,
  image: imageInputSchema,
  mask: imageInputSchema.optional().meta({
    description: 'A PNG with alpha, the size of the image: its transparent part is redrawn.',
  }),
});

export const findImagesInput = z.object({
  query: z.string().max(500).optional().meta({ description: 'Words of the prompt.' }),
  limit: z.int().min(1).max(50).optional().meta({ description: 'Default 10.' }),
  before: z
    .int()
    .optional()
    .meta({ description: 'Only images made before this time (ms since 1970): the next page.' }),
});

export const getSpendInput = z.object({});

/** A tool's input schema as MCP advertises it (JSON Schema, draft 2020-12). */
export function toolInputSchema(schema: z.ZodType): { type: 'object'; [key: string]: unknown } {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return { ...json, type: 'object' };
}
