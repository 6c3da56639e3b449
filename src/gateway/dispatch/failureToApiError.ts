import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError, upstreamFailed, usageLimitReached } from '../core/errors';
import type { UpstreamFailure } from '../core/upstreamError';

/**
 * Turns an upstream failure into what the caller sees (spec 7). `x-should-retry` tells the
 * official SDKs whether their own retry would help, so upstream calls are not multiplied: a
 * refusal or a missing image will not change on a blind retry; a dropped connection may.
 */
export function failureToApiError(failure: UpstreamFailure, now: number): ApiError {
  const noRetry = { 'x-should-retry': 'false' };
  switch (failure.kind) {
    case 'usage_limit': {
      const seconds = failure.resetAt === null ? null : Math.max(1, (failure.resetAt - now) / 1000);
      const when =
        failure.resetAt === null ? '' : ` It resets at ${new Date(failure.resetAt).toISOString()}.`;
      const error = usageLimitReached(`The upstream account hit its usage window.${when}`, seconds);
      // A wait of more than a minute is better left to the caller than to an SDK's quick retries.
      if (seconds === null || seconds > 60) error.headers['x-should-retry'] = 'false';
      return error;
    }
    case 'rate_limited': {
      const headers: Record<string, string> = {};
      if (failure.retryAfterMs !== null)
        headers['retry-after'] = String(Math.max(1, Math.ceil(failure.retryAfterMs / 1000)));
      return new ApiError(429, `The upstream is rate limiting requests: ${failure.message}`, {
        type: ERROR_TYPES.rateLimit,
        code: 'rate_limit_exceeded',
        headers,
      });
    }
    case 'http':
      if (failure.status >= 400 && failure.status < 500) {
        // The upstream's own 400 is the useful answer: hiding it behind a generic 502 is a peer's
        // most-cited failure.
        return new ApiError(400, `Upstream rejected the request: ${failure.message}`, {
          type: failure.type ?? ERROR_TYPES.invalidRequest,
          code: failure.code ?? ERROR_CODES.invalidValue,
          param: failure.param,
          headers: noRetry,
        });
      }
      return upstreamFailed(
        'upstream_http_error',
        `the upstream answered HTTP ${failure.status}: ${failure.message}`,
        // The gateway already retried what was worth retrying: an SDK retry on top would multiply calls.
        noRetry,
      );
    case 'network':
      return upstreamFailed(
        'upstream_network_error',
        `network failure talking to the upstream (${failure.message})`,
        noRetry,
      );
    case 'timeout':
      return upstreamFailed('upstream_timeout', failure.message, noRetry);
    case 'no_image':
      return upstreamFailed(
        'upstream_no_image',
        `the upstream returned no image data (${failure.message})`,
        noRetry,
      );
    case 'refused':
      return upstreamFailed(
        'upstream_refused',
        `the upstream refused the content: ${failure.message}. Simplify the prompt; retrying unchanged will not help.`,
        noRetry,
      );
    case 'unauthorized':
      return upstreamFailed(
        'upstream_http_error',
        `the upstream account's credentials were rejected (${failure.message})`,
      );
    case 'bad_response':
      return upstreamFailed('upstream_bad_response', failure.message, noRetry);
    case 'cancelled':
      return new ApiError(
        499,
        'The request was cancelled before the upstream finished its image.',
        {
          type: ERROR_TYPES.server,
          code: ERROR_CODES.cancelled,
        },
      );
  }
}
