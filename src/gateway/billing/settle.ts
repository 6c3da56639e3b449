import type { TokenUsage } from '../../shared/imageParams';
import type { Admission, EstimatedPart, TokenCeiling } from './admission';
import { costMicros } from './cost';
import type { Prices } from './prices';

/** One part of a request's tokens, priced at its own model (a Responses call has text and image parts). */
export interface PricedUsage {
  model: string;
  usage: TokenUsage;
}

/** What a request's usage row is billed: its tokens, their cost, and whether they are evidence. */
export interface Settlement {
  parts: PricedUsage[];
  costMicros: number;
  /**
   * The row holds the gateway's estimate, not the upstream's figures: the upstream reported no
   * usage for work it delivered, or figures above what the request could possibly use.
   */
  estimated: boolean;
}

/** What the upstream delivered, as the usage notes know it. */
export interface DeliveredWork {
  parts: readonly PricedUsage[];
  images: number;
  /** A response object arrived (a Responses call): its text was made, whatever it reported. */
  responded: boolean;
}

/**
 * Bills a finished request at the prices of its admission (the live table for a model it was not
 * priced for). Billed at least its evidence:
 * - a part the upstream delivered without usage (no `usage`, or zero tokens) is billed at the
 *   part's admission estimate;
 * - a part whose figures pass the request's possible maximum is billed at that maximum;
 * and either marks the row estimated.
 */
export function settle(
  work: DeliveredWork,
  admission: Admission | null,
  priceFor: (model: string) => Prices | null,
): Settlement {
  const priceOf = (model: string) =>
    admission?.prices.has(model) ? (admission.prices.get(model) ?? null) : priceFor(model);
  let estimated = false;
  const parts: PricedUsage[] = work.parts.map((part) => {
    const admitted = admission?.parts.find((p) => p.model === part.model);
    if (!admitted) return part;
    const capped = capUsage(part.usage, admitted.ceiling);
    if (capped === part.usage) return part;
    estimated = true;
    return { model: part.model, usage: capped };
  });
  for (const admitted of admission?.parts ?? []) {
    if (!deliveredWithoutUsage(admitted, work, parts)) continue;
    estimated = true;
    const index = parts.findIndex((p) => p.model === admitted.model);
    const billed = { model: admitted.model, usage: admitted.usage };
    if (index >= 0) parts[index] = billed;
    else parts.push(billed);
  }
  let cost = 0;
  for (const part of parts) {
    const price = priceOf(part.model);
    if (price) cost += costMicros(part.usage, price);
  }
  return { parts, costMicros: cost, estimated };
}

function deliveredWithoutUsage(
  admitted: EstimatedPart,
  work: DeliveredWork,
  parts: readonly PricedUsage[],
): boolean {
  const delivered = admitted.kind === 'image' ? work.images > 0 : work.responded;
  if (!delivered) return false;
  const reported = parts.filter((p) => p.model === admitted.model);
  return reported.every((p) => p.usage.total_tokens === 0 && p.usage.input_tokens === 0);
}

/** The usage, or (when a side passes its ceiling) a copy cut down to it; the same object if not. */
export function capUsage(usage: TokenUsage, ceiling: TokenCeiling): TokenUsage {
  const overInput = usage.input_tokens > ceiling.input;
  const overOutput = usage.output_tokens > ceiling.output;
  const overTotal = usage.total_tokens > ceiling.input + ceiling.output;
  if (!overInput && !overOutput && !overTotal) return usage;
  const input = overInput
    ? scaled(usage.input_tokens_details, usage.input_tokens, ceiling.input)
    : { total: usage.input_tokens, details: usage.input_tokens_details };
  const output = overOutput
    ? scaled(usage.output_tokens_details, usage.output_tokens, ceiling.output)
    : { total: usage.output_tokens, details: usage.output_tokens_details };
  return {
    input_tokens: input.total,
    input_tokens_details: input.details,
    output_tokens: output.total,
    output_tokens_details: output.details,
    total_tokens: input.total + output.total,
  };
}

/** A split cut down to `limit` tokens, keeping its text/image proportion. */
function scaled(
  details: { text_tokens: number; image_tokens: number },
  total: number,
  limit: number,
): { total: number; details: { text_tokens: number; image_tokens: number } } {
  const text = total > 0 ? Math.floor((details.text_tokens / total) * limit) : 0;
  return { total: limit, details: { text_tokens: text, image_tokens: limit - text } };
}
