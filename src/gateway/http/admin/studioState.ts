import { Router } from 'express';
import {
  MAX_STUDIO_STATE_BYTES,
  MAX_STUDIO_STATE_ENTRIES,
  putStudioStateBodySchema,
  studioStateParamsSchema,
  type StudioStateResponse,
} from '../../../shared/admin';
import { invalidParam } from '../../core/errors';
import type { StudioStateRepository } from '../../storage/studioStateRepository';
import { notFound, parse } from './parse';

export interface StudioStateAdminDeps {
  studioState: StudioStateRepository;
  now: () => number;
}

/**
 * /api/admin/studio/state: the studio's presets, drafts, Edit's text and preferences, kept by the
 * gateway so they survive a changed port and are the same in every tab (issue 22).
 */
export function studioStateAdmin(deps: StudioStateAdminDeps): Router {
  const router = Router();
  const nameOf = (raw: string) => parse(studioStateParamsSchema, { name: raw }).name;

  router.get('/studio/state', async (_req, res) => {
    res.json({ entries: await deps.studioState.all() } satisfies StudioStateResponse);
  });

  router.put('/studio/state/:name', async (req, res) => {
    const name = nameOf(req.params.name);
    const { value } = parse(putStudioStateBodySchema, req.body);
    if (value === undefined) throw invalidParam('value', "Missing 'value'.");
    const json = JSON.stringify(value);
    // Both limits are checked before anything is written.
    if (Buffer.byteLength(json) > MAX_STUDIO_STATE_BYTES)
      throw invalidParam(
        'value',
        `'value' is larger than ${MAX_STUDIO_STATE_BYTES} bytes of JSON.`,
      );
    const stored = await deps.studioState.put(name, json, deps.now(), MAX_STUDIO_STATE_ENTRIES);
    if (!stored)
      throw invalidParam('name', `At most ${MAX_STUDIO_STATE_ENTRIES} studio state entries.`);
    res.json({ ok: true });
  });

  router.delete('/studio/state/:name', async (req, res) => {
    if (!(await deps.studioState.remove(nameOf(req.params.name))))
      throw notFound('studio state entry');
    res.json({ ok: true });
  });

  return router;
}
