import { errorBodySchema, errorLimitSchema, type ErrorLimit } from '../../../shared/errors';

/** An error answer of the gateway, in the one body shape `{error: {message, type, param, code}}`. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  constructor(
    message: string,
    /** HTTP status; 0 when the gateway did not answer, or the error came inside a stream. */
    readonly status: number,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type: string | null = null,
    readonly requestId: string | null = null,
    /** A key limit's refusal: which limit, used of what, when it resets. */
    readonly limit: ErrorLimit | null = null,
  ) {
    super(message);
  }

  /** A plain copy for stores and rendering. */
  toInfo(): GatewayErrorInfo {
    return {
      status: this.status,
      message: this.message,
      param: this.param,
      code: this.code,
      type: this.type,
      requestId: this.requestId,
      limit: this.limit,
    };
  }
}

export interface GatewayErrorInfo {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
  type: string | null;
  requestId: string | null;
  /** `error.limit` of a key limit's 429 (budget, requests per minute, images per day). */
  limit?: ErrorLimit | null;
}

/** Turns an error body (or anything else a failing gateway sent) into a GatewayError. */
export function toGatewayError(
  status: number,
  body: unknown,
  fallback: string,
  requestId: string | null = null,
): GatewayError {
  const parsed = errorBodySchema.safeParse(body);
  const error = parsed.success ? parsed.data.error : null;
  return new GatewayError(
    error?.message || fallback,
    status,
    error?.param ?? null,
    error?.code ?? null,
    error?.type ?? null,
    requestId,
    errorLimitSchema.safeParse(error?.limit).data ?? null,
  );
}
