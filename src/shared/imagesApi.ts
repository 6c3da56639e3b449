import { z } from 'zod';
import { errorBodySchema } from './errors';
import { imageUsageSchema } from './tokenUsage';

/**
 * The replies of POST /v1/images/generations and /v1/images/edits as the studio reads them: the
 * JSON body and the events of a stream (upstream-protocols 2.2). Strings the gateway may leave
 * out read as null, so a reader never tells absent from null.
 */
const optionalText = z
  .string()
  .nullish()
  .transform((value) => value ?? null);
const index = z.number().int().min(0);

/** The fields that describe a delivered image, in a JSON reply and in a completed event alike. */
const deliveredFields = {
  size: optionalText,
  quality: optionalText,
  background: optionalText,
  output_format: optionalText,
};

export const imagesResponseSchema = z.object({
  created: z.number().optional(),
  data: z.array(
    z.object({
      b64_json: z.string().optional(),
      url: z.string().optional(),
      revised_prompt: optionalText,
    }),
  ),
  ...deliveredFields,
  /** The whole request's usage. */
  usage: imageUsageSchema,
});
export type ImagesResponse = z.infer<typeof imagesResponseSchema>;

export const PARTIAL_IMAGE_EVENTS = [
  'image_generation.partial_image',
  'image_edit.partial_image',
] as const;
export const COMPLETED_IMAGE_EVENTS = [
  'image_generation.completed',
  'image_edit.completed',
] as const;

/** `image_index` is sent only when n > 1: absent, the event is of the only image. */
export const partialImageEventSchema = z.object({
  type: z.enum(PARTIAL_IMAGE_EVENTS),
  b64_json: z.string(),
  image_index: index.default(0),
  partial_image_index: index,
  output_format: optionalText,
});

export const completedImageEventSchema = z.object({
  type: z.enum(COMPLETED_IMAGE_EVENTS),
  b64_json: z.string(),
  image_index: index.default(0),
  created_at: z.number().optional(),
  ...deliveredFields,
  revised_prompt: optionalText,
  /** This image's usage. */
  usage: imageUsageSchema,
});

/** The error body of spec 7 inside an `error` event; the stream ends after it. */
export const errorEventSchema = errorBodySchema.extend({ type: z.literal('error') });

export type PartialImageEvent = z.infer<typeof partialImageEventSchema>;
export type CompletedImageEvent = z.infer<typeof completedImageEventSchema>;

/** Which schema an image stream event's type calls for; null for a type a reader may skip. */
export function imageStreamEventKind(type: string): 'partial' | 'completed' | 'error' | null {
  if (type === 'error') return 'error';
  if ((PARTIAL_IMAGE_EVENTS as readonly string[]).includes(type)) return 'partial';
  if ((COMPLETED_IMAGE_EVENTS as readonly string[]).includes(type)) return 'completed';
  return null;
}
