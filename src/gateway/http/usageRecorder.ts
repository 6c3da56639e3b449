import type { NextFunction, Request, Response } from 'express';
import { ERROR_CODES } from '../../shared/errors';
import { usageLogUnavailable } from '../core/errors';
import type { Inflight } from '../usage/inflight';
import type { FinalStatus, UsageNotes } from '../usage/notes';
import type { UsageWriter } from '../usage/writer';
import { scopeOf, type RequestScope } from './requestScope';

/** HTTP's unofficial "client closed request": the caller left before the answer was complete. */
export const CLIENT_CLOSED = 499;

/**
 * Opens the request's usage notes and has them written exactly once, after the response has
 * closed AND the handler's upstream work has settled: a caller that disconnects mid-image is still
 * billed for the image the upstream went on to make.
 */
export function usageRecorder(deps: { inflight: Inflight; usage: UsageWriter; now: () => number }) {
  return (req: Request, res: Response, next: NextFunction): void => {
    // Reads (model lists) cost nothing and are not usage; every POST is recorded, errors included.
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') {
      next();
      return;
    }
    // Fail closed: a request that could not be recorded must not reach an upstream.
    const log = deps.usage.health.state;
    if (!log.writable) throw usageLogUnavailable(log.reason);
    const scope = scopeOf(res);
    const notes = deps.usage.open(scope.id, scope.startedAt, req.path);
    scope.recordInto(notes);
    const token = deps.inflight.begin();
    scope.stopOn(token.signal);
    scope.afterWork(async () => {
      try {
        await deps.usage.write(notes, finalStatus(notes, scope, res.statusCode, deps.now()));
      } finally {
        token.end();
      }
    });
    next();
  };
}

function finalStatus(
  notes: UsageNotes,
  scope: RequestScope,
  statusCode: number,
  now: number,
): FinalStatus {
  const latencyMs = now - notes.startedAt;
  const failure = notes.streamError;
  if (failure) {
    return {
      status: failure.status,
      errorCode: failure.code,
      errorMessage: failure.message,
      latencyMs,
    };
  }
  const answer = scope.answeredError;
  const errorCode = answer?.code ?? null;
  const errorMessage = answer?.message ?? null;
  if (!scope.delivered) {
    return {
      status: CLIENT_CLOSED,
      errorCode: errorCode ?? ERROR_CODES.cancelled,
      errorMessage:
        errorMessage ?? 'the client closed the connection before the response was complete',
      latencyMs,
    };
  }
  return { status: statusCode, errorCode, errorMessage, latencyMs };
}
