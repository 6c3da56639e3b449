import { estimateImageRequest, type EstimateInput } from '../../shared/costEstimate';
import { emptyUsage, type Quality, type TokenUsage } from '../../shared/imageParams';
import {
  inputImageTokens,
  outputImageTokens,
  PARTIAL_IMAGE_TOKENS,
} from '../../shared/imageTokens';
import { checkSize, SIZE_LIMITS } from '../../shared/sizeRules';
import { costMicros } from './cost';
import type { Prices } from './prices';

/** An image request as its estimate needs it: the inputs the studio prices before sending. */
export interface ImageDemandInput {
  model: string;
  prompt: string;
  size: string;
  quality: Quality | undefined;
  n: number;
  partialImages: number;
  inputImages?: ReadonlyArray<{ width: number; height: number }>;
}

/** The text model's side of a Responses call. */
export interface TextDemandInput {
  model: string;
  /** Every word the caller sent (input and instructions). */
  text: string;
  /** `max_output_tokens` when the caller set it. */
  maxOutputTokens: number | null;
  /** Images among the input items (each billed as input tokens by the text model). */
  inputImages: number;
}

/** What one request may use, known before any upstream call. */
export interface AdmissionRequest {
  image: ImageDemandInput | null;
  text?: TextDemandInput | null;
}

/** The most tokens one priced part can use: an upstream figure above it is not believed. */
export interface TokenCeiling {
  input: number;
  output: number;
}

/** One priced part of a request as estimated at admission. */
export interface EstimatedPart {
  /** An image part is billed only for images made; a text part for any response. */
  kind: 'image' | 'text';
  model: string;
  usage: TokenUsage;
  ceiling: TokenCeiling;
}

/**
 * A request priced at admission: the estimate reserved against its key's budget, and the prices
 * its usage row is billed at (a price changed while it runs applies to later requests only).
 */
export interface Admission {
  costMicros: number;
  images: number;
  parts: readonly EstimatedPart[];
  prices: ReadonlyMap<string, Prices | null>;
}

/**
 * Text tokens a Responses call is reserved for when it does not bound its own output. The
 * ceiling (what is believed of the upstream) is the model's whole output window instead.
 */
export const TEXT_OUTPUT_ESTIMATE = 1_000;
export const TEXT_OUTPUT_CEILING = 128_000;
/** Instructions, tool definitions and message framing the upstream adds to the caller's words. */
const TEXT_INPUT_OVERHEAD = 1_000;
/** An input image of a text model: its detail and size are unknown before the upstream reads it. */
const TEXT_MODEL_IMAGE_TOKENS = 1_600;
/** Tokens are never shorter than a byte: the caller's text bounds its own token count. */
const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Prices the request with the live table; the same table is kept for its usage row. */
export function admit(
  request: AdmissionRequest,
  priceFor: (model: string) => Prices | null,
): Admission {
  const parts: EstimatedPart[] = [];
  if (request.text) parts.push(textPart(request.text));
  if (request.image) parts.push(imagePart(request.image));
  const prices = new Map<string, Prices | null>();
  for (const part of parts)
    if (!prices.has(part.model)) prices.set(part.model, priceFor(part.model));
  let cost = 0;
  for (const part of parts) {
    const price = prices.get(part.model);
    if (price) cost += costMicros(part.usage, price);
  }
  return { costMicros: cost, images: request.image?.n ?? 0, parts, prices };
}

function imagePart(input: ImageDemandInput): EstimatedPart {
  const size = checkSize(input.size);
  const exact = size.ok && !size.auto ? { width: size.width, height: size.height } : null;
  const estimate: EstimateInput = {
    prompt: input.prompt,
    size: exact,
    quality: input.quality ?? 'auto',
    n: input.n,
    partialImages: input.partialImages,
    inputImages: input.inputImages,
  };
  const n = Math.max(1, Math.floor(input.n));
  // The dearest image the request can come back as: high quality, at its size (auto: the largest).
  const largest = exact ?? largestSize();
  const perImageOutput =
    outputImageTokens('high', largest.width, largest.height) +
    Math.max(0, input.partialImages) * PARTIAL_IMAGE_TOKENS;
  const perImageInput =
    utf8Bytes(input.prompt) +
    TEXT_INPUT_OVERHEAD +
    (input.inputImages ?? []).reduce((sum, i) => sum + inputImageTokens(i.width, i.height), 0);
  return {
    kind: 'image',
    model: input.model,
    usage: estimateImageRequest(estimate, {
      textInput: 0,
      imageInput: 0,
      textOutput: 0,
      imageOutput: 0,
    }).usage,
    ceiling: { input: 2 * perImageInput * n, output: 2 * perImageOutput * n },
  };
}

function textPart(input: TextDemandInput): EstimatedPart {
  const usage = emptyUsage();
  const textTokens = Math.ceil(input.text.length / 4) + 8;
  usage.input_tokens_details.text_tokens = textTokens;
  usage.input_tokens_details.image_tokens = input.inputImages * TEXT_MODEL_IMAGE_TOKENS;
  usage.input_tokens = textTokens + usage.input_tokens_details.image_tokens;
  const output = input.maxOutputTokens ?? TEXT_OUTPUT_ESTIMATE;
  usage.output_tokens = output;
  usage.output_tokens_details.text_tokens = output;
  usage.total_tokens = usage.input_tokens + output;
  return {
    kind: 'text',
    model: input.model,
    usage,
    ceiling: {
      input:
        utf8Bytes(input.text) +
        TEXT_INPUT_OVERHEAD +
        input.inputImages * TEXT_MODEL_IMAGE_TOKENS * 4,
      output: input.maxOutputTokens ?? TEXT_OUTPUT_CEILING,
    },
  };
}

function largestSize(): { width: number; height: number } {
  return {
    width: SIZE_LIMITS.maxEdge,
    height: Math.floor(SIZE_LIMITS.maxPixels / SIZE_LIMITS.maxEdge),
  };
}
