/** Value sets of spec 4.1, shared by request validation, the simulator and the studio. */
export const QUALITIES = ['low', 'medium', 'high', 'auto'] as const;
export type Quality = (typeof QUALITIES)[number];

export const OUTPUT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `transparent` is deliberately absent: the spec rejects it with 400 (spec 4.1, 7). */
export const BACKGROUNDS = ['auto', 'opaque'] as const;
export type Background = (typeof BACKGROUNDS)[number];

export const MODERATIONS = ['auto', 'low'] as const;
export type Moderation = (typeof MODERATIONS)[number];

export const LIMITS = {
  nMin: 1,
  nMax: 10,
  partialImagesMin: 0,
  partialImagesMax: 3,
  compressionMin: 0,
  compressionMax: 100,
  /** Edit inputs and masks must be strictly under 50 MiB (spec 4.2, 8.2). */
  maxInputFileBytes: 50 * 1024 * 1024,
  maxInputImages: 16,
  /**
   * Pixels of one input image or mask. The upstream publishes no input maximum; 64 MP (8192 x
   * 8192) passes any camera photo short of medium format, and nothing larger is ever decoded.
   */
  maxInputPixels: 8192 * 8192,
} as const;

/** Token accounting of a request, split as spec 2.1 `usage`. */
export interface TokenUsage {
  input_tokens: number;
  input_tokens_details: { text_tokens: number; image_tokens: number };
  output_tokens: number;
  output_tokens_details: { text_tokens: number; image_tokens: number };
  total_tokens: number;
}

export function emptyUsage(): TokenUsage {
  return {
    input_tokens: 0,
    input_tokens_details: { text_tokens: 0, image_tokens: 0 },
    output_tokens: 0,
    output_tokens_details: { text_tokens: 0, image_tokens: 0 },
    total_tokens: 0,
  };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    input_tokens_details: {
      text_tokens: a.input_tokens_details.text_tokens + b.input_tokens_details.text_tokens,
      image_tokens: a.input_tokens_details.image_tokens + b.input_tokens_details.image_tokens,
    },
    output_tokens: a.output_tokens + b.output_tokens,
    output_tokens_details: {
      text_tokens: a.output_tokens_details.text_tokens + b.output_tokens_details.text_tokens,
      image_tokens: a.output_tokens_details.image_tokens + b.output_tokens_details.image_tokens,
    },
    total_tokens: a.total_tokens + b.total_tokens,
  };
}
