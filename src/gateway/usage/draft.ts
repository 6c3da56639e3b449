import { emptyUsage, type TokenUsage } from '../../shared/imageParams';

/** One part of a request's tokens, priced at its own model (a Responses call has text and image parts). */
export interface PricedUsage {
  model: string;
  usage: TokenUsage;
}

/**
 * What a request has learned about itself so far. Middleware creates it, handlers fill it in,
 * and the recorder writes it once when both the response and the upstream work are over.
 */
export interface UsageDraft {
  requestId: string;
  startedAt: number;
  endpoint: string;
  model: string | null;
  size: string | null;
  deliveredSize: string | null;
  quality: string | null;
  outputFormat: string | null;
  n: number;
  stream: boolean;
  user: string | null;
  apiKeyId: string | null;
  groupName: string | null;
  images: number;
  accountId: string | null;
  accountName: string | null;
  /** Which ladder step(s) delivered, e.g. '1' or '3,3'; null when the ladder was not used. */
  fallbackStep: string | null;
  parts: PricedUsage[];
  /** Set when a stream reported an error after its 200 headers went out. */
  streamError: { status: number; code: string | null; message: string } | null;
}

export function newDraft(requestId: string, startedAt: number, endpoint: string): UsageDraft {
  return {
    requestId,
    startedAt,
    endpoint,
    model: null,
    size: null,
    deliveredSize: null,
    quality: null,
    outputFormat: null,
    n: 1,
    stream: false,
    user: null,
    apiKeyId: null,
    groupName: null,
    images: 0,
    accountId: null,
    accountName: null,
    fallbackStep: null,
    parts: [],
    streamError: null,
  };
}

export function totalUsage(parts: PricedUsage[]): TokenUsage {
  const total = emptyUsage();
  for (const { usage } of parts) {
    total.input_tokens += usage.input_tokens;
    total.input_tokens_details.text_tokens += usage.input_tokens_details.text_tokens;
    total.input_tokens_details.image_tokens += usage.input_tokens_details.image_tokens;
    total.output_tokens += usage.output_tokens;
    total.output_tokens_details.text_tokens += usage.output_tokens_details.text_tokens;
    total.output_tokens_details.image_tokens += usage.output_tokens_details.image_tokens;
    total.total_tokens += usage.total_tokens;
  }
  return total;
}
