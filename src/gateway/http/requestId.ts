import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { RequestScope } from './requestScope';

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

/**
 * Every request gets its scope (its id and start time), and every response carries
 * `x-request-id`, errors included: it is the key into the usage log.
 */
export function requestId(_req: Request, res: Response, next: NextFunction): void {
  const scope = new RequestScope(newRequestId(), Date.now(), res);
  res.locals.scope = scope;
  res.setHeader('x-request-id', scope.id);
  next();
}
