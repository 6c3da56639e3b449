import { z } from 'zod';
import type { TokenUsage } from './imageParams';

interface Split {
  text_tokens: number;
  image_tokens: number;
}

/**
 * Turns an upstream `usage` object (of unknown shape and trust) into a complete TokenUsage, so
 * billing never reads a missing field as NaN.
 *
 * - A missing or non-numeric count is derived from the others where it can be, else 0; negative
 *   counts are 0 and fractions are rounded.
 * - A missing `input_tokens` is the sum of its details; a missing `total_tokens` is input + output.
 * - `output_tokens_details` is optional on the Images API: without it every output token is an image
 *   token for an image model (upstream-protocols 2.1) and a text token for a text model.
 * - Without `input_tokens_details` the input is taken as text: a prompt is always there, an input
 *   image only sometimes, and text is the cheaper class, so a missing split never over-bills.
 * - Where only one half of a split is given, the other half is the remainder of the total.
 *   Text-model usage carries `cached_tokens` / `reasoning_tokens` details instead: those do not
 *   split text from image, so they count as no split at all.
 */
export function normaliseUsage(raw: unknown, opts: { imageModel: boolean }): TokenUsage {
  const usage = asRecord(raw);
  const inputDetails = asRecord(usage.input_tokens_details);
  const outputDetails = asRecord(usage.output_tokens_details);

  const input = count(usage.input_tokens) ?? sumOf(inputDetails);
  const output = count(usage.output_tokens) ?? sumOf(outputDetails);
  const total = count(usage.total_tokens) ?? input + output;

  return {
    input_tokens: input,
    input_tokens_details: split(inputDetails, input, 'text'),
    output_tokens: output,
    output_tokens_details: split(outputDetails, output, opts.imageModel ? 'image' : 'text'),
    total_tokens: total,
  };
}

function split(
  details: Record<string, unknown>,
  total: number,
  whenMissing: 'text' | 'image',
): Split {
  const text = count(details.text_tokens);
  const image = count(details.image_tokens);
  if (text === null && image === null) {
    return whenMissing === 'image'
      ? { text_tokens: 0, image_tokens: total }
      : { text_tokens: total, image_tokens: 0 };
  }
  return {
    text_tokens: text ?? Math.max(0, total - (image ?? 0)),
    image_tokens: image ?? Math.max(0, total - (text ?? 0)),
  };
}

function sumOf(details: Record<string, unknown>): number {
  return (count(details.text_tokens) ?? 0) + (count(details.image_tokens) ?? 0);
}

/** A token count, or null where the field is absent or not a usable number. */
function count(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return Math.max(0, Math.round(value));
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * The `usage` of an image reply or image event, read by the rules of `normaliseUsage` for an
 * image model: the gateway and the studio count the same tokens. Absent is null (a reply that
 * carries none); anything but an object is a malformed reply.
 */
export const imageUsageSchema = z
  .record(z.string(), z.unknown())
  .nullish()
  .transform((raw): TokenUsage | null => (raw ? normaliseUsage(raw, { imageModel: true }) : null));
