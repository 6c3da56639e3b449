import { Router } from 'express';
import {
  liveRunSchema,
  RUN_ID_PATTERN,
  runEventsQuerySchema,
  type LiveRunsResponse,
} from '../../../shared/admin';
import { ApiError, invalidParam } from '../../core/errors';
import { ERROR_CODES, ERROR_TYPES } from '../../../shared/errors';
import type { StudioKey } from '../../keys/studioKey';
import { STUDIO_RUN_JOB_PREFIX, type ResponseJobs } from '../../responseJobs/jobs';
import { startingAfter, streamJob } from '../replies/jobStream';
import { parse } from './parse';
import type { StudioRuns } from '../studioRuns';

export interface RunsAdminDeps {
  runs: Pick<StudioRuns, 'cancel'>;
  /** The studio's runs as jobs (responseJobs/): listed, followed and cancelled from any page. */
  jobs?: ResponseJobs;
  studioKey: StudioKey;
}

function runIdOf(runId: string): string {
  if (!RUN_ID_PATTERN.test(runId)) throw invalidParam('runId', 'Invalid run id.');
  return runId;
}

/**
 * /api/admin/runs: the studio stops one of its own image runs, upstream work included; and,
 * since its runs outlive the page (issue 25), a page that comes back lists those still going and
 * follows one from where it is.
 */
export function runsAdmin(deps: RunsAdminDeps): Router {
  const router = Router();
  const studioKeyId = async () => (await deps.studioKey.get())?.id ?? null;

  router.post('/runs/:runId/cancel', async (req, res) => {
    const runId = runIdOf(req.params.runId);
    // The job first: it says "cancelled" before the aborted run reports its end.
    const keyId = deps.jobs ? await studioKeyId() : null;
    const job = deps.jobs && keyId ? await deps.jobs.cancelStudioRun(keyId, runId) : false;
    const run = deps.runs.cancel(runId);
    // A run that already ended is not an error: the studio cancels whatever is still going.
    res.json({ cancelled: job || run });
  });

  router.get('/runs/live', async (_req, res) => {
    const keyId = deps.jobs ? await studioKeyId() : null;
    const jobs = deps.jobs && keyId ? await deps.jobs.studioRunsInFlight(keyId) : [];
    const runs = jobs.flatMap((job) => {
      const parsed = liveRunSchema.safeParse(job);
      return parsed.success ? [parsed.data] : [];
    });
    res.json({ runs } satisfies LiveRunsResponse);
  });

  router.get('/runs/:runId/events', async (req, res) => {
    const runId = runIdOf(req.params.runId);
    const after = startingAfter(parse(runEventsQuerySchema, req.query).starting_after);
    const keyId = deps.jobs ? await studioKeyId() : null;
    const id = `${STUDIO_RUN_JOB_PREFIX}${runId}`;
    const job = deps.jobs && keyId ? await deps.jobs.get(keyId, id) : null;
    if (!deps.jobs || !job) {
      throw new ApiError(
        404,
        `No studio run '${runId}' is kept (a run is kept an hour after it ends).`,
        {
          type: ERROR_TYPES.notFound,
          code: ERROR_CODES.notFound,
          param: 'runId',
        },
      );
    }
    streamJob(deps.jobs, id, after, res);
  });
  return router;
}
