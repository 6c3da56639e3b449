import { Router } from 'express';
import {
  studioRunsQuerySchema,
  type StudioRun,
  type StudioRunsResponse,
} from '../../../shared/admin';
import { cancelledByCaller, deliveredDespiteLeaving } from '../../../shared/usageRecord';
import type { ImagesRepository } from '../../gallery/repository';
import type { StudioKey } from '../../keys/studioKey';
import type { UsageRecord, UsageRepository } from '../../usage/repository';
import { imageView } from './images';
import { parse } from './parse';

const DEFAULT_RUNS = 30;

export interface StudioRunsListDeps {
  usage: Pick<UsageRepository, 'list' | 'count'>;
  images: Pick<ImagesRepository, 'ofRequests'>;
  studioKey: StudioKey;
}

/** What a run came to, as the studio shows it: a Cancel of the person's own is not a failure. */
export function runPhase(record: Pick<UsageRecord, 'status' | 'errorCode' | 'images'>) {
  // A caller that left after its image was made was delivered (docs/admin-api.md, usage).
  if (record.status < 400 || deliveredDespiteLeaving(record)) return 'done' as const;
  return cancelledByCaller(record) ? ('cancelled' as const) : ('error' as const);
}

/**
 * GET /api/admin/studio/runs: the runs view of Generate and Edit (issue 22). The studio's own
 * requests (the Studio key's usage log, newest first), each with the images the gallery kept from
 * it, read back from the gateway so they survive reloads, restarts and a changed port.
 */
export function studioRunsList(deps: StudioRunsListDeps): Router {
  const router = Router();
  router.get('/studio/runs', async (req, res) => {
    const query = parse(studioRunsQuerySchema, req.query);
    const key = await deps.studioKey.get();
    if (!key) {
      res.json({ runs: [], total: 0 } satisfies StudioRunsResponse);
      return;
    }
    const filter = {
      apiKeyId: key.id,
      endpoint: query.endpoint ? `/images/${query.endpoint}` : undefined,
    };
    const records = await deps.usage.list({
      ...filter,
      limit: query.limit ?? DEFAULT_RUNS,
      offset: query.offset ?? 0,
    });
    const kept = await deps.images.ofRequests(records.map((r) => r.requestId));
    const runs = records.map((record): StudioRun => {
      const images = kept.get(record.requestId) ?? [];
      return {
        requestId: record.requestId,
        createdAt: record.createdAt,
        endpoint: record.endpoint,
        prompt: images[0]?.prompt ?? null,
        model: record.model,
        size: record.size,
        quality: record.quality,
        n: record.n,
        phase: runPhase(record),
        status: record.status,
        errorMessage: record.errorMessage,
        costMicros: record.costMicros,
        images: images.map(imageView),
      };
    });
    res.json({ runs, total: await deps.usage.count(filter) } satisfies StudioRunsResponse);
  });
  return router;
}
