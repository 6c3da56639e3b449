import { emptyUsage } from '../shared/imageParams';
import type { Quality, TokenUsage } from '../shared/imageParams';
import {
  inputImageTokens,
  outputImageTokens,
  PARTIAL_IMAGE_TOKENS,
  promptTokens,
} from '../shared/imageTokens';

export { inputImageTokens, outputImageTokens, PARTIAL_IMAGE_TOKENS } from '../shared/imageTokens';

/** Prompt tokens, as the shared estimate counts them. */
export const textTokens = promptTokens;

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
