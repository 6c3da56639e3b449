import type { TokenUsage } from '../../shared/imageParams';
import type { Prices } from './prices';

const TOKENS_PER_PRICE_UNIT = 1_000_000;

/**
 * Cost of one request in integer micro-dollars: every token count times its price per 1M tokens,
 * summed exactly, then divided by 1M and rounded once, half up (Math.round). Rounding once over
 * the whole request rather than per token class keeps the error under half a micro-dollar.
 *
 * Example: 1000 image output tokens at $30 per 1M = 1000 * 30_000_000 / 1M = 30_000 micros ($0.03).
 *
 * The summed product stays an exact integer as long as it is below 2^53 (about 300 million tokens
 * at $30 per 1M); beyond that BigInt takes over so a huge request is never mis-billed.
 */
export function costMicros(usage: TokenUsage, price: Prices): number {
  const terms: ReadonlyArray<readonly [number, number]> = [
    [usage.input_tokens_details.text_tokens, price.textInput],
    [usage.input_tokens_details.image_tokens, price.imageInput],
    [usage.output_tokens_details.text_tokens, price.textOutput],
    [usage.output_tokens_details.image_tokens, price.imageOutput],
  ];
  let sum = 0;
  for (const [tokens, unitPrice] of terms) sum += tokens * unitPrice;
  if (Number.isSafeInteger(sum)) return Math.round(sum / TOKENS_PER_PRICE_UNIT);

  let big = 0n;
  for (const [tokens, unitPrice] of terms) big += BigInt(tokens) * BigInt(unitPrice);
  const unit = BigInt(TOKENS_PER_PRICE_UNIT);
  // Half up, like Math.round, for the non-negative sums that token counts produce.
  return Number((big + unit / 2n) / unit);
}
