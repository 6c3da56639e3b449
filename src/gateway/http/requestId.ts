import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

/** Every response carries `x-request-id`, errors included: it is the key into the usage log. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const id = newRequestId();
  res.locals.requestId = id;
  res.locals.startedAt = Date.now();
  res.setHeader('x-request-id', id);
  next();
}
