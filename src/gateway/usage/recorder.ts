import type { NextFunction, Request, Response } from 'express';
import { ERROR_CODES } from '../../shared/errors';
import type { Inflight } from './inflight';
import { newDraft, type UsageDraft } from './draft';

export interface FinalStatus {
  status: number;
  errorCode: string | null;
  errorMessage: string | null;
  latencyMs: number;
}

/** HTTP's unofficial "client closed request": the caller left before the answer was complete. */
export const CLIENT_CLOSED = 499;

/**
 * Creates the request's usage draft and writes it exactly once, after the response has closed
 * AND the handler's upstream work has settled: a caller that disconnects mid-image is still
 * billed for the image the upstream went on to make.
 */
export function usageRecorder(deps: {
  inflight: Inflight;
  now: () => number;
  write: (draft: UsageDraft, final: FinalStatus) => void;
  log: (line: string) => void;
}) {
  return (req: Request, res: Response, next: NextFunction): void => {
    // Reads (model lists) cost nothing and are not usage; every POST is recorded, errors included.
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') {
      next();
      return;
    }
    const draft = newDraft(String(res.locals.requestId), Number(res.locals.startedAt), req.path);
    res.locals.usage = draft;
    const token = deps.inflight.begin();
    res.locals.signal = token.signal;
    res.once('close', () => {
      // Whether the client got the whole response is a fact of this moment: the handler may
      // still write (into the closed socket) when its upstream work ends.
      const delivered = res.writableFinished;
      void Promise.resolve(res.locals.work as Promise<unknown> | undefined)
        .catch(() => undefined)
        .then(() => {
          try {
            deps.write(draft, finalStatus(draft, res, delivered, deps.now()));
          } catch (error) {
            deps.log(`usage record for ${draft.requestId} could not be written: ${String(error)}`);
          } finally {
            token.end();
          }
        });
    });
    next();
  };
}

function finalStatus(
  draft: UsageDraft,
  res: Response,
  delivered: boolean,
  now: number,
): FinalStatus {
  const latencyMs = now - draft.startedAt;
  if (draft.streamError) {
    return {
      status: draft.streamError.status,
      errorCode: draft.streamError.code,
      errorMessage: draft.streamError.message,
      latencyMs,
    };
  }
  const errorCode = (res.locals.errorCode as string | null | undefined) ?? null;
  const errorMessage = (res.locals.errorMessage as string | null | undefined) ?? null;
  if (!delivered) {
    return {
      status: CLIENT_CLOSED,
      errorCode: errorCode ?? ERROR_CODES.cancelled,
      errorMessage:
        errorMessage ?? 'the client closed the connection before the response was complete',
      latencyMs,
    };
  }
  return { status: res.statusCode, errorCode, errorMessage, latencyMs };
}

/** Runs a handler's work so the recorder can wait for it even after the client has gone. */
export function track(res: Response, work: Promise<void>): Promise<void> {
  res.locals.work = work;
  return work;
}
