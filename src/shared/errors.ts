import { z } from 'zod';

/**
 * The one error body shape of the service (OpenAI style), and the codes Atelier answers with.
 * Clients key off `code`; `param` names the offending field for 400s.
 */
export interface ErrorBody {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
  };
}

/**
 * An error body as a client reads it: a proxy or a failing gateway may leave any field out, so
 * each is optional and the reader supplies its own fallback message.
 */
/**
 * `error.limit` of a key limit's 429 (docs/api.md, Key limits): which limit, its period and unit,
 * its size, what is used (spent and reserved), what the request needed, and when it resets.
 */
export const errorLimitSchema = z.object({
  name: z.enum(['budget', 'requests_per_minute', 'images_per_day']),
  period: z.enum(['minute', 'day', 'month', 'total']).nullish(),
  unit: z.enum(['usd', 'requests', 'images']).nullish(),
  limit: z.number(),
  used: z.number(),
  requested: z.number().nullish(),
  resets_at: z.string().nullish(),
});
export type ErrorLimit = z.infer<typeof errorLimitSchema>;

export const errorBodySchema = z.object({
  error: z.object({
    message: z.string().optional(),
    type: z.string().nullish(),
    param: z.string().nullish(),
    code: z.string().nullish(),
    /** Read on its own (errorLimitSchema): a limit in a shape not known here loses only itself. */
    limit: z.unknown().optional(),
  }),
});

export const ERROR_TYPES = {
  invalidRequest: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  notFound: 'not_found_error',
  usageLimit: 'usage_limit_reached',
  rateLimit: 'rate_limit_error',
  upstream: 'upstream_error',
  server: 'server_error',
  moderation: 'image_generation_user_error',
} as const;

/** Codes of 502 `Upstream request failed`, one per failure a user must tell apart. */
export const UPSTREAM_FAILURE_CODES = [
  'upstream_no_image',
  'upstream_refused',
  'upstream_network_error',
  'upstream_timeout',
  'upstream_http_error',
  'upstream_bad_response',
  'upstream_size_mismatch',
  'upstream_partial_failure',
] as const;
export type UpstreamFailureCode = (typeof UPSTREAM_FAILURE_CODES)[number];

export const ERROR_CODES = {
  invalidApiKey: 'INVALID_API_KEY',
  usageLimitReached: 'usage_limit_reached',
  invalidValue: 'invalid_value',
  missingParameter: 'missing_required_parameter',
  unsupportedParameter: 'unsupported_parameter',
  unknownParameter: 'unknown_parameter',
  invalidSize: 'invalid_size',
  invalidImage: 'invalid_image',
  invalidMask: 'invalid_mask',
  fileTooLarge: 'file_too_large',
  unknownModel: 'model_not_found',
  wrongModelKind: 'model_not_supported',
  forbiddenHost: 'forbidden_host',
  forbiddenOrigin: 'forbidden_origin',
  notFound: 'not_found',
  internal: 'internal_error',
  cancelled: 'client_cancelled',
  /** The request body stalled before it was complete (408). */
  requestTimeout: 'request_timeout',
  contentPolicy: 'content_policy_violation',
  /** The admin API (and /v1 as the studio) without a studio session cookie and header. */
  studioSessionRequired: 'studio_session_required',
  /** A studio login link that is unknown, already used or expired. */
  studioLoginInvalid: 'studio_login_invalid',
  /** 503: the gateway is stopping and takes no new work (Retry-After says when to try again). */
  draining: 'server_draining',
  /** The usage log cannot be written (disk full, read-only): no request starts until it can (503). */
  usageLogUnavailable: 'usage_log_unavailable',
} as const;
