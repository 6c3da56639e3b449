import type { NextFunction, Request, Response } from 'express';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';

/**
 * Browsers attach Origin to cross-site requests. Our own studio's origin and the origins the user
 * allowed may call us (with CORS headers); any other web page is refused, so a site the user
 * happens to visit cannot spend their tokens through localhost.
 */
export function originGuard(
  ownOrigins: ReadonlySet<string>,
  getAllowedOrigins: () => readonly string[],
) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (origin === undefined) {
      next();
      return;
    }
    if (ownOrigins.has(origin)) {
      next();
      return;
    }
    if (!getAllowedOrigins().includes(origin)) {
      next(
        new ApiError(
          403,
          `Origin '${origin}' is not allowed. Add it to the allowed origins in the studio's settings.`,
          {
            type: ERROR_TYPES.permission,
            code: ERROR_CODES.forbiddenOrigin,
          },
        ),
      );
      return;
    }
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'Origin');
    res.setHeader('access-control-expose-headers', 'x-request-id, retry-after, x-should-retry');
    if (req.method === 'OPTIONS') {
      res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
      res.setHeader(
        'access-control-allow-headers',
        'authorization, content-type, x-stainless-*, openai-*',
      );
      res.setHeader('access-control-max-age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
