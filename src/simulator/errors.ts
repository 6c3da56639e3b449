import type { ErrorBody } from '../shared/errors';

/**
 * The one error the simulator's handlers throw. The server's single error handler turns it into
 * the provider's body `{error: {message, type, param, code}}` plus any extra fields and headers.
 */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): ErrorBody {
    return {
      error: {
        message: this.message,
        type: this.type,
        param: this.param,
        code: this.code,
        ...this.extra,
      },
    };
  }
}

/** Thrown after the socket was destroyed on purpose: the error handler must write nothing. */
export class SocketReset extends Error {
  constructor() {
    super('socket reset by fault');
  }
}

export function invalidRequest(
  param: string | null,
  message: string,
  code: string | null = 'invalid_value',
): SimHttpError {
  return new SimHttpError(400, 'invalid_request_error', code, message, param);
}

export function missingParameter(param: string): SimHttpError {
  return invalidRequest(
    param,
    `Missing required parameter: '${param}'.`,
    'missing_required_parameter',
  );
}

export function unauthorized(message: string, code: string): SimHttpError {
  return new SimHttpError(401, 'invalid_request_error', code, message);
}
