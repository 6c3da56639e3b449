import { emptyUsage } from '../shared/imageParams';
import type { Quality, TokenUsage } from '../shared/imageParams';

type Shape = 'square' | 'portrait' | 'landscape';

/** Output image tokens at the 1024 class (protocol page, section 3). */
const OUTPUT_TOKENS: Record<Exclude<Quality, 'auto'>, Record<Shape, number>> = {
  low: { square: 272, portrait: 408, landscape: 400 },
  medium: { square: 1056, portrait: 1584, landscape: 1568 },
  high: { square: 4160, portrait: 6240, landscape: 6208 },
};

/** Pixel count of the reference size of each shape: 1024x1024, 1024x1536, 1536x1024. */
const CLASS_PIXELS: Record<Shape, number> = {
  square: 1024 * 1024,
  portrait: 1024 * 1536,
  landscape: 1536 * 1024,
};

export const PARTIAL_IMAGE_TOKENS = 100;

function shapeOf(width: number, height: number): Shape {
  if (width === height) return 'square';
  return height > width ? 'portrait' : 'landscape';
}

/** Tokens of one output image; they grow with pixel count, so 4K costs far more than 1024. */
export function outputImageTokens(quality: Quality, width: number, height: number): number {
  const shape = shapeOf(width, height);
  const base = OUTPUT_TOKENS[quality === 'auto' ? 'medium' : quality][shape];
  return Math.round((base * width * height) / CLASS_PIXELS[shape]);
}

export function textTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One input image: shortest side scaled to 512 px, then 65 base tokens + 129 per 512 px tile. */
export function inputImageTokens(width: number, height: number): number {
  const scale = 512 / Math.min(width, height);
  const tiles = Math.ceil((width * scale) / 512) * Math.ceil((height * scale) / 512);
  return 65 + 129 * tiles;
}

export interface UsageParts {
  prompt: string;
  inputImages: readonly { width: number; height: number }[];
  /** Delivered images (their real dimensions) and the quality billed for them. */
  outputs: readonly { width: number; height: number; quality: Quality }[];
  partialImages: number;
}

/** Usage of an image call: input counted once, output per delivered image and partial. */
export function imageUsage(parts: UsageParts): TokenUsage {
  const usage = emptyUsage();
  usage.input_tokens_details.text_tokens = textTokens(parts.prompt);
  usage.input_tokens_details.image_tokens = parts.inputImages.reduce(
    (sum, image) => sum + inputImageTokens(image.width, image.height),
    0,
  );
  usage.output_tokens_details.image_tokens =
    parts.outputs.reduce((sum, o) => sum + outputImageTokens(o.quality, o.width, o.height), 0) +
    parts.partialImages * PARTIAL_IMAGE_TOKENS;
  return finish(usage);
}

export function finish(usage: TokenUsage): TokenUsage {
  usage.input_tokens =
    usage.input_tokens_details.text_tokens + usage.input_tokens_details.image_tokens;
  usage.output_tokens =
    usage.output_tokens_details.text_tokens + usage.output_tokens_details.image_tokens;
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  return usage;
}
