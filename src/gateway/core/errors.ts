import {
  ERROR_CODES,
  ERROR_TYPES,
  type ErrorBody,
  type UpstreamFailureCode,
} from '../../shared/errors';

/**
 * The gateway's one error type. Middleware and handlers throw it; only the central error handler
 * (http/errorHandler.ts) turns it into a response, so every error has the same body shape.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    message: string,
    opts: {
      type: string;
      code?: string | null;
      param?: string | null;
      headers?: Record<string, string>;
    },
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.type = opts.type;
    this.code = opts.code ?? null;
    this.param = opts.param ?? null;
    this.headers = opts.headers ?? {};
  }

  toBody(): ErrorBody {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code },
    };
  }
}

/** 400 naming the parameter at fault. */
export function invalidParam(
  param: string,
  message: string,
  code: string = ERROR_CODES.invalidValue,
): ApiError {
  return new ApiError(400, message, { type: ERROR_TYPES.invalidRequest, param, code });
}

/** 400 about the request as a whole (no single parameter at fault). */
export function invalidRequest(message: string, code: string = ERROR_CODES.invalidValue): ApiError {
  return new ApiError(400, message, { type: ERROR_TYPES.invalidRequest, param: null, code });
}

/** 415: the body comes in an encoding (or charset) the gateway does not decode. */
export function unsupportedEncoding(encoding: string | undefined): ApiError {
  const which = encoding ? ` '${encoding}'` : '';
  return new ApiError(
    415,
    `Unsupported request encoding${which}: send the body uncompressed and in UTF-8 (JSON bodies` +
      ' may also be gzip, deflate or br)',
    { type: ERROR_TYPES.invalidRequest, code: ERROR_CODES.invalidValue },
  );
}

export function invalidApiKey(
  message = 'Invalid API key. Create a key on the /keys page.',
): ApiError {
  return new ApiError(401, message, {
    type: ERROR_TYPES.authentication,
    code: ERROR_CODES.invalidApiKey,
  });
}

/** 502 `Upstream request failed`, with a code that says which failure. */
export function upstreamFailed(
  code: UpstreamFailureCode,
  detail: string,
  headers?: Record<string, string>,
): ApiError {
  return new ApiError(502, `Upstream request failed: ${detail}`, {
    type: ERROR_TYPES.upstream,
    code,
    headers,
  });
}

export function usageLimitReached(message: string, retryAfterSeconds: number | null): ApiError {
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== null)
    headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  return new ApiError(429, message, {
    type: ERROR_TYPES.usageLimit,
    code: ERROR_CODES.usageLimitReached,
    headers,
  });
}

/**
 * 503 while the usage log cannot be written: nothing that could cost money may start unrecorded.
 * Retrying is right once the cause (`reason`: disk full, read-only) is fixed.
 */
export function usageLogUnavailable(reason: string): ApiError {
  return new ApiError(
    503,
    `The gateway cannot write its usage log (${reason}), so it starts no upstream work until it can. ` +
      'Free disk space or make the data folder writable; requests are taken again as soon as a write succeeds.',
    {
      type: ERROR_TYPES.server,
      code: ERROR_CODES.usageLogUnavailable,
      headers: { 'retry-after': '5' },
    },
  );
}
