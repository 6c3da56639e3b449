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
 *
 * A key's request with a run id is cancellable too, but only from inside the gateway and only
 * under that key (`cancelForKey`): the MCP server's tools use it when their host cancels a call.
 * Each caller's run ids are their own: a key cannot reach the studio's runs or another key's.
 */
export interface StudioRuns {
  /** /v1 middleware, after authentication: makes a studio run cancellable. */
  cancellable(req: Request, res: Response, next: NextFunction): void;
  /** Aborts the studio run's upstream work; false when no such run is in flight. */
  cancel(runId: string): boolean;
  /** Aborts the upstream work of a run made with the key `keyId`; false when none is in flight. */
  cancelForKey(keyId: string, runId: string, reason: string): boolean;
  readonly size: number;
}

const STUDIO = 'studio';

export function createStudioRuns(): StudioRuns {
  /** By owner and run id: `studio/<id>` or `key:<key id>/<id>`. */
  const runs = new Map<string, AbortController>();
  const abort = (id: string, reason: string): boolean => {
    const controller = runs.get(id);
    if (!controller || controller.signal.aborted) return false;
    controller.abort(new Error(reason));
    return true;
  };
  return {
    cancellable(req, res, next) {
      const runId = req.headers[STUDIO_RUN_HEADER];
      const scope = scopeOf(res);
      const key = scope.keyIfAny;
      const owner = scope.studioSession ? STUDIO : key ? `key:${key.id}` : null;
      const id = `${owner}/${String(runId)}`;
      if (
        owner === null ||
        typeof runId !== 'string' ||
        !RUN_ID_PATTERN.test(runId) ||
        runs.has(id)
      ) {
        next();
        return;
      }
      const controller = new AbortController();
      runs.set(id, controller);
      // Handlers read the request's signal from the scope: it now also ends on a cancel.
      scope.stopOn(controller.signal);
      // The work goes on after the socket closes (that is the point): keep the run cancellable
      // until it settles.
      scope.afterWork(() => {
        if (runs.get(id) === controller) runs.delete(id);
      });
      next();
    },
    cancel(runId) {
      return abort(`${STUDIO}/${runId}`, 'cancelled from the studio');
    },
    cancelForKey(keyId, runId, reason) {
      return abort(`key:${keyId}/${runId}`, reason);
    },
    get size() {
      return runs.size;
    },
  };
}
