import type { TokenUsage } from '../../shared/imageParams';

/**
 * `total` shared over `n` images, every count split evenly with the remainder on the first, so
 * the parts add up to the total exactly.
 */
export function splitUsage(total: TokenUsage, n: number): TokenUsage[] {
  const share = (count: number, i: number) => Math.floor(count / n) + (i === 0 ? count % n : 0);
  return Array.from({ length: n }, (_, i) => ({
    input_tokens: share(total.input_tokens, i),
    input_tokens_details: {
      text_tokens: share(total.input_tokens_details.text_tokens, i),
      image_tokens: share(total.input_tokens_details.image_tokens, i),
    },
    output_tokens: share(total.output_tokens, i),
    output_tokens_details: {
      text_tokens: share(total.output_tokens_details.text_tokens, i),
      image_tokens: share(total.output_tokens_details.image_tokens, i),
    },
    total_tokens: share(total.total_tokens, i),
  }));
}
