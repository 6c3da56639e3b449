import type { NextFunction, Request, Response } from 'express';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError, unsupportedEncoding } from '../core/errors';
import './requestScope';

/** Errors thrown by express's body parsers carry a `type` such as `entity.parse.failed`. */
interface ParserError {
  type?: string;
  status?: number;
  limit?: number;
  /** zlib's code when a compressed body does not decode (`Z_DATA_ERROR`, `ERR__ERROR_FORMAT_...`). */
  code?: string;
  encoding?: string;
  message?: string;
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const parser = error as ParserError;
  if (parser?.type === 'entity.parse.failed') {
    return new ApiError(400, 'The request body is not valid JSON.', {
      type: ERROR_TYPES.invalidRequest,
      code: ERROR_CODES.invalidValue,
    });
  }
  if (parser?.type === 'entity.too.large') {
    return new ApiError(
      413,
      `The request body is larger than the ${parser.limit ?? ''} byte limit of this endpoint.`,
      {
        type: ERROR_TYPES.invalidRequest,
        code: ERROR_CODES.fileTooLarge,
      },
    );
  }
  if (parser?.type === 'encoding.unsupported' || parser?.type === 'charset.unsupported') {
    return unsupportedEncoding(parser.encoding);
  }
  // The body parsers answer every other fault of the body itself with a 4xx of their own: a
  // compressed body that does not decompress, a body shorter than its Content-Length, a client
  // that stopped sending. None of them is the gateway's fault, so none may become a 500.
  if (typeof parser?.status === 'number' && parser.status >= 400 && parser.status < 500) {
    const damaged = typeof parser.code === 'string' && /^(Z_|ERR_)/.test(parser.code);
    return new ApiError(
      400,
      damaged
        ? `The request body could not be decompressed (${parser.message ?? parser.code}): its` +
            ' Content-Encoding does not match the data.'
        : `The request body could not be read: ${parser.message ?? 'malformed body'}.`,
      { type: ERROR_TYPES.invalidRequest, code: ERROR_CODES.invalidValue },
    );
  }
  return new ApiError(
    500,
    'Internal error in the gateway. The request id identifies it in the log.',
    {
      type: ERROR_TYPES.server,
      code: ERROR_CODES.internal,
    },
  );
}

/**
 * The one place errors become responses. Middleware and handlers only throw; this writes the
 * OpenAI-style body and remembers the code for the usage record.
 */
export function errorHandler(log: (line: string) => void) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    const apiError = toApiError(error);
    // The last resort must not fail itself: a request always has its scope, a test's bare app
    // may not.
    const scope = res.locals.scope;
    scope?.answered(apiError);
    if (apiError.status >= 500 && !(error instanceof ApiError)) {
      log(
        `request ${scope?.id ?? '(no id)'} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
    if (res.headersSent) {
      // A stream already under way reports the error as an event (see sse.ts); here we can only close.
      next(error);
      return;
    }
    for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
    // A caller without a valid key gets no kept-alive connection to sit on. (One whose body is
    // still arriving keeps it for the bounded drain of slowClients.ts, so it can read this.)
    if (apiError.status === 401 && req.complete) res.setHeader('connection', 'close');
    res.status(apiError.status).json(apiError.toBody());
  };
}
