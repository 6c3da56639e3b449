import type { NextFunction, Request, Response } from 'express';
import { hasLimits } from '../limits/keyLimits';
import type { KeyLimiter } from '../limits/limiter';
import { scopeOf } from './requestScope';

/**
 * The limits hook of /v1, after authentication: an expired key is refused (any method); a request
 * that will have a usage row (every POST) is checked against requests per minute and admitted.
 * Its estimate is reserved by the image service once the body is read (`reserveEstimate`).
 */
export function keyLimitsGuard(limiter: KeyLimiter, now: () => number) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const scope = scopeOf(res);
    const key = scope.keyIfAny;
    if (!key || !hasLimits(key.limits)) {
      next();
      return;
    }
    const at = now();
    limiter.checkExpiry(key, at);
    // Only requests the usage recorder will write (and so charge) may hold a ticket.
    if (!scope.hasUsage) {
      next();
      return;
    }
    limiter.admit(scope.id, key, scope.startedAt, at).then(() => next(), next);
  };
}
