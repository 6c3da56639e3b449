/**
 * Cost estimate of an image request before it is sent, from the token accounting of the
 * protocol page (section 3). Pure: the studio shows it before sending and the gateway may reuse it.
 *
 * The current model has no published token table; tokens grow with pixel count, so the previous
 * model's 1024-class table is scaled by the pixel count of the requested size. The simulator bills
 * with the same formula, so against it the estimate is exact (up to the prompt's text tokens).
 */
import { emptyUsage, type Quality, type TokenUsage } from './imageParams';
import {
  inputImageTokens,
  outputImageTokens,
  PARTIAL_IMAGE_TOKENS,
  promptTokens,
} from './imageTokens';

export {
  inputImageTokens,
  outputImageTokens,
  PARTIAL_IMAGE_TOKENS,
  promptTokens,
  OUTPUT_TOKENS_1024,
} from './imageTokens';

/** Prices of one model in integer micro-dollars per 1M tokens ($5 per 1M is 5_000_000). */
export interface PriceTable {
  textInput: number;
  imageInput: number;
  textOutput: number;
  imageOutput: number;
}

const MICROS = 1_000_000;

/**
 * Third-party pages give $5 / $8 / $30 per 1M tokens (text in, image in, image out) for the
 * current model; text out is not quoted there and takes the gateway's seeded $10.
 */
export const DEFAULT_IMAGE_PRICES: PriceTable = {
  textInput: 5 * MICROS,
  imageInput: 8 * MICROS,
  textOutput: 10 * MICROS,
  imageOutput: 30 * MICROS,
};

/** What `size: auto` is assumed to produce when nothing better is known. */
export const AUTO_SIZE_GUESS = { width: 1024, height: 1024 } as const;

export interface EstimateInput {
  prompt: string;
  /** The output size; `null` for `auto` (then `autoSize`, else 1024x1024, is assumed). */
  size: { width: number; height: number } | null;
  autoSize?: { width: number; height: number } | undefined;
  quality: Quality;
  n: number;
  /** Partial images per image; only counted when streaming. */
  partialImages: number;
  /** Reference images of an edit, each billed as input image tokens. */
  inputImages?: ReadonlyArray<{ width: number; height: number }>;
}

export interface CostEstimate {
  /** Estimated usage of the whole request (all n images). */
  usage: TokenUsage;
  costMicros: number;
  /** Output image tokens of one final image (without partials). */
  perImageOutputTokens: number;
  /** What the estimate had to assume, in words a person can check. */
  assumptions: string[];
}

/**
 * The gateway makes each of the n images as its own upstream call, so the prompt and the input
 * images are billed once per image, and each image's partials add their own tokens.
 */
export function estimateImageRequest(input: EstimateInput, prices: PriceTable): CostEstimate {
  const assumptions: string[] = [];
  let size = input.size;
  if (!size) {
    size = input.autoSize ?? AUTO_SIZE_GUESS;
    assumptions.push(`size auto estimated as ${size.width}x${size.height}`);
  }
  if (input.quality === 'auto') assumptions.push('quality auto estimated as medium');
  const n = Math.max(1, Math.floor(input.n));
  const partials = Math.max(0, Math.floor(input.partialImages));
  const perImageOutputTokens = outputImageTokens(input.quality, size.width, size.height);
  const perImageInputImageTokens = (input.inputImages ?? []).reduce(
    (sum, image) => sum + inputImageTokens(image.width, image.height),
    0,
  );

  const usage = emptyUsage();
  usage.input_tokens_details.text_tokens = promptTokens(input.prompt) * n;
  usage.input_tokens_details.image_tokens = perImageInputImageTokens * n;
  usage.output_tokens_details.image_tokens =
    (perImageOutputTokens + partials * PARTIAL_IMAGE_TOKENS) * n;
  usage.input_tokens =
    usage.input_tokens_details.text_tokens + usage.input_tokens_details.image_tokens;
  usage.output_tokens =
    usage.output_tokens_details.text_tokens + usage.output_tokens_details.image_tokens;
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  return { usage, costMicros: usageCostMicros(usage, prices), perImageOutputTokens, assumptions };
}

/**
 * Cost of a usage in integer micro-dollars, rounded once over the whole request (half up), the
 * way the gateway bills it.
 */
export function usageCostMicros(usage: TokenUsage, prices: PriceTable): number {
  const sum =
    usage.input_tokens_details.text_tokens * prices.textInput +
    usage.input_tokens_details.image_tokens * prices.imageInput +
    usage.output_tokens_details.text_tokens * prices.textOutput +
    usage.output_tokens_details.image_tokens * prices.imageOutput;
  return Math.round(sum / MICROS);
}

/**
 * "$0.0317" for small amounts, "$1.24" from a dollar up: four decimals below a dollar, because
 * one low-quality image costs under a cent.
 */
export function formatUsd(micros: number): string {
  const dollars = micros / MICROS;
  const sign = dollars < 0 ? '-' : '';
  const abs = Math.abs(dollars);
  return `${sign}$${abs >= 1 ? abs.toFixed(2) : abs.toFixed(4)}`;
}

/**
 * Parses a decimal dollar string ("30", "1.25", "0.000001") into integer micro-dollars without a
 * float on the way, or returns null when it is not one.
 */
export function dollarsToMicros(dollars: string): number | null {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(dollars.trim());
  if (!match) return null;
  const micros = Number(match[1]) * MICROS + Number((match[2] ?? '').padEnd(6, '0'));
  return Number.isSafeInteger(micros) ? micros : null;
}
