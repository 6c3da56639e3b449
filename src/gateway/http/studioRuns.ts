import type { NextFunction, Request, Response } from 'express';
import { RUN_ID_PATTERN, STUDIO_RUN_HEADER } from '../../shared/admin';
import { scopeOf } from './requestScope';

/**
 * The studio's image runs in flight, by the id the studio gave each (`x-atelier-run`), so its
 * Cancel button really stops the upstream work.
 *
 * A caller that disconnects does not stop anything on its own: the gateway reads the upstream to
 * the end so the image is billed and kept (what an API client that timed out wants back). Only
 * the studio's session can say "I do not want this image" (POST /api/admin/runs/:id/cancel), and
 * only for its own runs; the request then ends the way a shutdown ends it (status 499).
 */
export interface StudioRuns {
  /** /v1 middleware, after authentication: makes a studio run cancellable. */
  cancellable(req: Request, res: Response, next: NextFunction): void;
  /** Aborts the run's upstream work; false when no such run is in flight. */
  cancel(runId: string): boolean;
  readonly size: number;
}

export function createStudioRuns(): StudioRuns {
  const runs = new Map<string, AbortController>();
  return {
    cancellable(req, res, next) {
      const runId = req.headers[STUDIO_RUN_HEADER];
      const scope = scopeOf(res);
      if (
        !scope.studioSession ||
        typeof runId !== 'string' ||
        !RUN_ID_PATTERN.test(runId) ||
        runs.has(runId)
      ) {
        next();
        return;
      }
      const controller = new AbortController();
      runs.set(runId, controller);
      // Handlers read the request's signal from the scope: it now also ends on a cancel.
      scope.stopOn(controller.signal);
      // The work goes on after the socket closes (that is the point): keep the run cancellable
      // until it settles.
      scope.afterWork(() => {
        if (runs.get(runId) === controller) runs.delete(runId);
      });
      next();
    },
    cancel(runId) {
      const controller = runs.get(runId);
      if (!controller || controller.signal.aborted) return false;
      controller.abort(new Error('cancelled from the studio'));
      return true;
    },
    get size() {
      return runs.size;
    },
  };
}
