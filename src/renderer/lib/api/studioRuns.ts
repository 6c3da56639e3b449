/**
 * The studio's runs (/api/admin/studio/runs), those still going (/api/admin/runs/live) and their
 * Cancel (/api/admin/runs/{id}/cancel).
 */
import {
  cancelRunResponseSchema,
  liveRunsResponseSchema,
  studioRunsResponseSchema,
} from '../../../shared/admin';
import { queryString, type Requester } from './request';

export function studioRunsApi(request: Requester) {
  return {
    /** The studio's own runs, newest first, with the images each kept (issue 22). */
    studioRuns: (
      query: { endpoint?: 'generations' | 'edits'; limit?: number; offset?: number },
      signal?: AbortSignal,
    ) =>
      request.json(studioRunsResponseSchema, `/api/admin/studio/runs${queryString({ ...query })}`, {
        signal,
      }),
    /** The studio's runs still going at the gateway (a closed or reloaded page comes back to them). */
    liveRuns: async (signal?: AbortSignal) =>
      (await request.json(liveRunsResponseSchema, '/api/admin/runs/live', { signal })).runs,
    /** Stops the upstream work of a studio run; false when it had already ended. */
    cancelRun: async (runId: string) =>
      (
        await request.json(
          cancelRunResponseSchema,
          `/api/admin/runs/${encodeURIComponent(runId)}/cancel`,
          { method: 'POST' },
        )
      ).cancelled,
  };
}
