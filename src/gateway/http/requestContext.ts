import type { Response } from 'express';
import type { UsageNotes } from '../usage/notes';

/*
 * The request context the usage path reads and writes, declared once so it is read without casts.
 * (Express merges this into `res.locals`.)
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The request's usage notes: every POST under /v1 has them (usageRecorder). */
      usage?: UsageNotes;
      /** The handler's upstream work, which can outlive the response (track). */
      work?: Promise<void>;
      /** The error the reply answered with (errorHandler, sse), for the usage record. */
      errorCode?: string | null;
      errorMessage?: string | null;
    }
  }
}

/** The request's usage notes. Only routes behind the usage recorder call this. */
export function usageNotes(res: Response): UsageNotes {
  const notes = res.locals.usage;
  if (!notes) throw new Error('no usage notes: the route is not behind the usage recorder');
  return notes;
}

/** Runs a handler's work so the recorder can wait for it even after the client has gone. */
export function track(res: Response, work: Promise<void>): Promise<void> {
  res.locals.work = work;
  return work;
}
