import type { Response } from 'express';
import type { ImageCaller } from '../imageService/types';
import { reserveKeyLimits } from '../limits/middleware';
import type { AuthenticatedKey } from './auth';
import { usageNotes } from './requestContext';

/** `x-atelier-fallback: ladder` turns the fallback ladder on for one request. */
export const LADDER_HEADER = 'x-atelier-fallback';

/** The caller of an image request, read from the request context for the Express-free service. */
export function imageCaller(res: Response): ImageCaller {
  const key = res.locals.apiKey as AuthenticatedKey;
  return {
    key,
    ladderAsked: String(res.req.headers[LADDER_HEADER] ?? '').toLowerCase() === 'ladder',
    signal: res.locals.signal as AbortSignal,
    usage: usageNotes(res),
    studio: res.locals.studio === true,
    parentImageId: (res.locals.parentImageId as string | undefined) ?? null,
    reserve: (demand) => reserveKeyLimits(res, demand),
    connected: () => !res.destroyed,
  };
}
