import type { Response } from 'express';
import type { ImageCaller } from '../imageService/types';
import { reserveKeyLimits } from '../limits/middleware';
import { apiKeyOf, callerOf, requestSignal, usageNotes } from './requestContext';

/** `x-atelier-fallback: ladder` turns the fallback ladder on for one request. */
export const LADDER_HEADER = 'x-atelier-fallback';

/** The caller of an image request, read from the request context for the Express-free service. */
export function imageCaller(res: Response): ImageCaller {
  return {
    key: apiKeyOf(res),
    ladderAsked: String(res.req.headers[LADDER_HEADER] ?? '').toLowerCase() === 'ladder',
    signal: requestSignal(res),
    usage: usageNotes(res),
    ...callerOf(res),
    reserve: (demand) => reserveKeyLimits(res, demand),
    connected: () => !res.destroyed,
  };
}
