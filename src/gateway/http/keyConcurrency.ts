import type { NextFunction, Request, Response } from 'express';
import { ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';
import { scopeOf } from './requestScope';

/**
 * A key's optional cap on requests in flight, so one busy agent cannot starve the other apps
 * sharing the gateway. Over the cap is an immediate 429 that SDKs retry after a second.
 */
export function keyConcurrency() {
  const inFlight = new Map<string, number>();
  return (req: Request, res: Response, next: NextFunction): void => {
    const scope = scopeOf(res);
    const key = scope.keyIfAny;
    if (!key || key.concurrencyLimit === null || req.method !== 'POST') {
      next();
      return;
    }
    const current = inFlight.get(key.id) ?? 0;
    if (current >= key.concurrencyLimit) {
      next(
        new ApiError(
          429,
          `This key allows ${key.concurrencyLimit} request(s) at once and that many are running.`,
          {
            type: ERROR_TYPES.rateLimit,
            code: 'concurrency_limit_exceeded',
            headers: { 'retry-after': '1' },
          },
        ),
      );
      return;
    }
    inFlight.set(key.id, current + 1);
    // The slot is held until the upstream work is over, not just until the client leaves.
    scope.afterWork(() => {
      const left = (inFlight.get(key.id) ?? 1) - 1;
      if (left <= 0) inFlight.delete(key.id);
      else inFlight.set(key.id, left);
    });
    next();
  };
}
