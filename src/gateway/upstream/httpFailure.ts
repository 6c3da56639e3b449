import { errors as undiciErrors } from 'undici';
import { UpstreamError, type UpstreamFailure } from '../core/upstreamError';
import { UnsentRequestError } from './sendPost';
import { upstreamRequestIdOf } from './upstreamRequestId';

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * When the account's exhausted usage window resets. Hints are taken in order of precision: the
 * body's own reset for the limit that was hit; then only the usage windows reported as used up
 * (a secondary window at 25% resets days later and says nothing about this limit); then
 * `retry-after`.
 */
export function resetAtFrom(
  headers: Headers,
  body: Record<string, unknown> | null,
  now: number,
): number | null {
  const fromBody: number[] = [];
  const resetsAt = Number(body?.resets_at);
  if (Number.isFinite(resetsAt) && resetsAt > 0) fromBody.push(resetsAt * 1000);
  const resetsIn = Number(body?.resets_in_seconds);
  if (Number.isFinite(resetsIn) && resetsIn >= 0) fromBody.push(now + resetsIn * 1000);
  if (fromBody.length > 0) return Math.max(...fromBody);

  const exhausted: number[] = [];
  for (const window of ['primary', 'secondary']) {
    const used = Number(header(headers, `x-codex-${window}-used-percent`));
    const seconds = Number(header(headers, `x-codex-${window}-reset-after-seconds`));
    if (used >= 100 && Number.isFinite(seconds) && seconds >= 0)
      exhausted.push(now + seconds * 1000);
  }
  if (exhausted.length > 0) return Math.max(...exhausted);

  const retryAfter = header(headers, 'retry-after');
  if (retryAfter === undefined) return null;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return now + seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? null : date;
}

/** Classifies a non-2xx upstream reply. `text` is the (small) error body. */
export function failureFromResponse(
  status: number,
  headers: Headers,
  text: string,
  now: number,
): UpstreamError {
  let parsed: Record<string, unknown> | null;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = null;
  }
  const err = (
    parsed?.error && typeof parsed.error === 'object' ? parsed.error : (parsed ?? {})
  ) as Record<string, unknown>;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const code = str(err.code);
  const type = str(err.type);
  const message = str(err.message) ?? (text.slice(0, 300) || `HTTP ${status}`);
  const param = str(err.param);
  let failure: UpstreamFailure;
  if (status === 429 && (code === 'usage_limit_reached' || type === 'usage_limit_reached')) {
    failure = {
      kind: 'usage_limit',
      resetAt: resetAtFrom(headers, { ...parsed, ...err }, now),
      message,
    };
  } else if (status === 429) {
    const retryAfterMs = Number(
      header(headers, 'retry-after-ms') ?? Number(header(headers, 'retry-after')) * 1000,
    );
    failure = {
      kind: 'rate_limited',
      retryAfterMs: Number.isFinite(retryAfterMs) ? retryAfterMs : null,
      message,
    };
  } else if (status === 401 || status === 403) {
    failure = { kind: 'unauthorized', message };
  } else if (
    code === 'moderation_blocked' ||
    type === 'image_generation_user_error' ||
    code === 'content_policy_violation'
  ) {
    failure = { kind: 'refused', message };
  } else {
    failure = { kind: 'http', status, code, message, param, type };
  }
  return new UpstreamError(failure, { upstreamRequestId: upstreamRequestIdOf(headers) });
}

/** Classifies a thrown transport error (undici, abort). */
export function failureFromThrown(error: unknown, signal: AbortSignal): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (signal.aborted)
    return new UpstreamError({ kind: 'cancelled', message: 'the request was cancelled' });
  if (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError
  ) {
    return new UpstreamError({
      kind: 'timeout',
      message: `the upstream did not answer in time (${error.message})`,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string } | null)?.code;
  return new UpstreamError({
    kind: 'network',
    message: code ? `${code}: ${message}` : message,
    ...(error instanceof UnsentRequestError ? { unsent: true } : {}),
    ...(code !== undefined && CONNECT_FAILURES.has(code) ? { unreachable: true } : {}),
  });
}

/** Codes of a connection that could not be made at all: the account's address does not answer. */
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
