import type { NextFunction, Request, Response } from 'express';
import type { AdmissionRequest } from '../billing/admission';
import { NO_DEMAND } from './demand';
import { hasLimits } from './keyLimits';
import type { KeyLimiter, LimitedKey } from './limiter';

/**
 * The limits hook of /v1, after authentication: an expired key is refused (any method); a request
 * that will have a usage row (every POST) is checked against requests per minute and admitted,
 * and gets the means to reserve its estimate once its body is read (`reserveKeyLimits`).
 */
export function keyLimitsGuard(limiter: KeyLimiter, now: () => number) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const key: LimitedKey | undefined = res.locals.apiKey;
    if (!key || !hasLimits(key.limits)) {
      next();
      return;
    }
    const at = now();
    limiter.checkExpiry(key, at);
    // Only requests the usage recorder will write (and so charge) may hold a ticket.
    if (res.locals.usage === undefined) {
      next();
      return;
    }
    const requestId = String(res.locals.requestId);
    limiter.admit(requestId, key, Number(res.locals.startedAt), at);
    res.locals.reserveKeyLimits = (demand) => limiter.reserve(requestId, key, demand, now());
    next();
  };
}

/**
 * Called by a handler once it has read what the request asks for, before any upstream call:
 * prices the request (its usage notes keep the estimate and the prices it is billed at), then
 * throws the 429 of the limit it would pass, else reserves the estimate on the key.
 */
export function reserveKeyLimits(res: Response, request: AdmissionRequest): void {
  const admission = res.locals.usage?.admit(request);
  res.locals.reserveKeyLimits?.(admission ?? NO_DEMAND);
}
