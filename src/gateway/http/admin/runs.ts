import { Router } from 'express';
import { RUN_ID_PATTERN } from '../../../shared/admin';
import { invalidParam } from '../../core/errors';
import type { StudioRuns } from '../studioRuns';

export interface RunsAdminDeps {
  runs: Pick<StudioRuns, 'cancel'>;
}

/** /api/admin/runs: the studio stops one of its own image runs, upstream work included. */
export function runsAdmin(deps: RunsAdminDeps): Router {
  const router = Router();
  router.post('/runs/:runId/cancel', (req, res) => {
    const { runId } = req.params;
    if (!RUN_ID_PATTERN.test(runId)) throw invalidParam('runId', 'Invalid run id.');
    // A run that already ended is not an error: the studio cancels whatever is still going.
    res.json({ cancelled: deps.runs.cancel(runId) });
  });
  return router;
}
