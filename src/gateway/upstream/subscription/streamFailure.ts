import { UpstreamError } from '../../core/upstreamError';
import { resetAtFrom } from '../httpFailure';

type Headers = Record<string, string | string[] | undefined>;

const REFUSAL_CODES = new Set(['moderation_blocked', 'content_policy_violation', 'content_filter']);

/**
 * Classifies an error that arrives inside a 200 stream (`error` events, `response.failed`), the
 * way failureFromResponse classifies an HTTP error: a usage limit cools the account until its
 * reset, a policy block is a refusal, a request error is the caller's 400, anything else is an
 * upstream failure worth a retry elsewhere.
 */
export function streamFailure(
  raw: Record<string, unknown>,
  headers: Headers,
  now: number,
): UpstreamError {
  const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const code = str(raw.code);
  const type = str(raw.type);
  const message = str(raw.message) ?? `the upstream stream failed${code ? ` (${code})` : ''}`;
  if (code === 'usage_limit_reached' || type === 'usage_limit_reached')
    return new UpstreamError({
      kind: 'usage_limit',
      resetAt: resetAtFrom(headers, raw, now),
      message,
    });
  if (code === 'rate_limit_exceeded') {
    const seconds = Number(raw.resets_in_seconds);
    return new UpstreamError({
      kind: 'rate_limited',
      retryAfterMs: Number.isFinite(seconds) ? seconds * 1000 : null,
      message,
    });
  }
  if ((code && REFUSAL_CODES.has(code)) || type === 'image_generation_user_error')
    return new UpstreamError({ kind: 'refused', message });
  const status = type === 'invalid_request_error' ? 400 : 502;
  return new UpstreamError({
    kind: 'http',
    status,
    code,
    message,
    param: str(raw.param),
    type,
  });
}

/**
 * Whether text that came instead of an image reads as a refusal (the model declining) rather than
 * an outage or a chatty answer. A refusal is not retried more than once by dispatch; no_image is.
 */
export function looksLikeRefusal(text: string): boolean {
  return /\b(?:sorry|apologi[sz]e|unable to|not able to|can(?:not|'t|\u2019t)|won(?:'|\u2019)t be able|content polic|(?:against|violat\w*) (?:our|the|its) (?:content )?(?:polic|guideline|rule))/i.test(
    text,
  );
}
