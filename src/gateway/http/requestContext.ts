import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ImageCaller } from '../imageService/types';
import { requestSeed } from '../../simulator/variant';
import { validCount } from '../validation/imageOptions';
import { scopeOf, type RequestScope } from './requestScope';

/** Even a request that fails validation is recorded with the model and size it asked for. */
export function noteRawFields(req: Request, scope: RequestScope): void {
  const body = (req.body ?? {}) as Record<string, unknown>;
  scope.usage.requested({
    model: typeof body.model === 'string' ? body.model.slice(0, 100) : undefined,
    size: typeof body.size === 'string' ? body.size.slice(0, 20) : undefined,
    // Only a valid count: 1e300 or 2.5 must not reach the record's integer column.
    n: validCount(body.n) ?? undefined,
    stream: body.stream === true ? true : undefined,
  });
}

/** `x-atelier-fallback: ladder` turns the fallback ladder on for one request. */
export const LADDER_HEADER = 'x-atelier-fallback';

/** The caller of an image request, read from the request's scope for the Express-free service. */
export function imageCaller(res: Response): ImageCaller {
  const scope = scopeOf(res);
  return {
    requestId: scope.id,
    key: scope.key,
    ladderAsked: String(res.req.headers[LADDER_HEADER] ?? '').toLowerCase() === 'ladder',
    seed: requestSeed(res.req.headers) ?? randomUUID(),
    signal: scope.signal,
    usage: scope.usage,
    studioSession: scope.studioSession,
    parentImageId: scope.parentImageId,
    connected: () => !res.destroyed,
  };
}
