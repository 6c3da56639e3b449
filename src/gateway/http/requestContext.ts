import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ImageCaller } from '../imageService/types';
import { requestSeed } from '../../simulator/variant';
import type { ImageDemandInput } from '../limits/demand';
import { reserveKeyLimits } from '../limits/middleware';
import type { UsageNotes } from '../usage/notes';
import { validCount } from '../validation/imageOptions';
import type { AuthenticatedKey } from './auth';

/*
 * The request context: what the middleware of /v1 learns about a request and the handlers read,
 * declared once so it is read without casts. (Express merges this into `res.locals`.) Each key
 * names the one place that sets it.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The request's id (`x-request-id`) and when it arrived (requestId.ts). */
      requestId?: string;
      startedAt?: number;
      /** The request's usage notes: every POST under /v1 has them (usageRecorder). */
      usage?: UsageNotes;
      /** Aborted when the request's work must stop: shutdown (usageRecorder), a studio Cancel (studioRuns). */
      signal?: AbortSignal;
      /** The key the request runs under (auth.ts). */
      apiKey?: AuthenticatedKey;
      /** The studio's own session stands for the built-in Studio key (auth.ts). */
      studioSession?: boolean;
      /** The gallery image an edit was made from (galleryPort.ts, `x-atelier-parent-image`). */
      parentImageId?: string;
      /** Reserves the request's estimate against its key's limits (limits/middleware.ts). */
      reserveKeyLimits?: (request: ImageDemandInput | null) => void;
      /** The handler's upstream work, which can outlive the response (registerWork). */
      work?: Promise<void>;
      /** The error the reply answered with (errorHandler, sse, slowClients), for the usage record. */
      errorCode?: string | null;
      errorMessage?: string | null;
      /** The status of an error sent inside an event stream (its HTTP status stays 200). */
      streamStatus?: number;
    }
  }
}

/** The request's usage notes. Only routes behind the usage recorder call this. */
export function usageNotes(res: Response): UsageNotes {
  const notes = res.locals.usage;
  if (!notes) throw new Error('no usage notes: the route is not behind the usage recorder');
  return notes;
}

/** The key the request runs under. Only routes behind the key check call this. */
export function apiKeyOf(res: Response): AuthenticatedKey {
  const key = res.locals.apiKey;
  if (!key) throw new Error('no API key: the route is not behind the key check');
  return key;
}

/** The signal the request's upstream work stops on. Only routes behind the recorder call this. */
export function requestSignal(res: Response): AbortSignal {
  const signal = res.locals.signal;
  if (!signal) throw new Error('no request signal: the route is not behind the usage recorder');
  return signal;
}

/** Who asked, as the gallery needs to know it. */
export function callerOf(res: Response): { studioSession: boolean; parentImageId: string | null } {
  return {
    studioSession: res.locals.studioSession === true,
    parentImageId: res.locals.parentImageId ?? null,
  };
}

/**
 * Registers a handler's upstream work (and returns it), so the usage recorder and the studio's
 * runs wait for it even after the client has gone: the work can outlive the response.
 */
export function registerWork(res: Response, work: Promise<void>): Promise<void> {
  res.locals.work = work;
  return work;
}

/** Even a request that fails validation is recorded with the model and size it asked for. */
export function noteRawFields(req: Request, res: Response): void {
  const body = (req.body ?? {}) as Record<string, unknown>;
  usageNotes(res).requested({
    model: typeof body.model === 'string' ? body.model.slice(0, 100) : undefined,
    size: typeof body.size === 'string' ? body.size.slice(0, 20) : undefined,
    // Only a valid count: 1e300 or 2.5 must not reach the record's integer column.
    n: validCount(body.n) ?? undefined,
    stream: body.stream === true ? true : undefined,
  });
}

/** `x-atelier-fallback: ladder` turns the fallback ladder on for one request. */
export const LADDER_HEADER = 'x-atelier-fallback';

/** The caller of an image request, read from the request context for the Express-free service. */
export function imageCaller(res: Response): ImageCaller {
  return {
    key: apiKeyOf(res),
    ladderAsked: String(res.req.headers[LADDER_HEADER] ?? '').toLowerCase() === 'ladder',
    seed: requestSeed(res.req.headers) ?? randomUUID(),
    signal: requestSignal(res),
    usage: usageNotes(res),
    ...callerOf(res),
    reserve: (demand) => reserveKeyLimits(res, demand),
    connected: () => !res.destroyed,
  };
}
