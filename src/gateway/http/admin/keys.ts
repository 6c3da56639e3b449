import { Router } from 'express';
import { createKeyBodySchema, patchKeyBodySchema, type KeyView } from '../../../shared/admin';
import { ERROR_CODES, ERROR_TYPES } from '../../../shared/errors';
import { ApiError, invalidParam } from '../../core/errors';
import type { StudioKey } from '../../keys/studioKey';
import type { KeyLimitUse } from '../../limits/limiter';
import type { ApiKeyRecord, KeysRepository } from '../../keys/repository';
import type { UsageRepository, UsageTotal } from '../../usage/repository';
import { notFound, parse } from './parse';

export interface KeysAdminDeps {
  keys: KeysRepository;
  usage: UsageRepository;
  studioKey: StudioKey;
  /** What a key has used against its limits now, reservations of requests in flight included. */
  keyLimitUse: (record: ApiKeyRecord) => Promise<KeyLimitUse>;
}

/** /api/admin/keys: the /keys page. The plaintext of a key is answered once, at creation. */
export function keysAdmin(deps: KeysAdminDeps): Router {
  const router = Router();
  const spend = async () =>
    new Map((await deps.usage.totals({ groupBy: 'key' })).map((row) => [row.key, row] as const));
  const view = async (
    record: ApiKeyRecord,
    totals: Map<string | null, UsageTotal>,
  ): Promise<KeyView> => {
    const row = totals.get(record.id);
    return {
      ...record,
      requests: row?.requests ?? 0,
      costMicros: row?.costMicros ?? 0,
      builtIn: deps.studioKey.is(record.id),
      limitUse: await deps.keyLimitUse(record),
    };
  };
  const existing = async (id: string) => {
    const record = await deps.keys.get(id);
    if (!record || record.status === 'deleted') throw notFound('key');
    return record;
  };
  const refuseForStudio = (id: string, action: string) => {
    if (deps.studioKey.is(id))
      throw invalidParam('id', `The built-in Studio key cannot be ${action}: the studio uses it.`);
  };

  router.get('/keys', async (_req, res) => {
    const records = await deps.keys.list();
    const totals = await spend();
    res.json({ keys: await Promise.all(records.map((record) => view(record, totals))) });
  });

  /**
   * The built-in Studio key (made here if the studio has not called /v1 yet), so the studio can
   * set its own budget on it: the gateway enforces it as it does any key's.
   */
  router.get('/keys/studio', async (_req, res) => {
    const record = await deps.studioKey.get();
    if (!record) {
      throw new ApiError(404, 'The Studio key is disabled: enable it on the Keys page first.', {
        type: ERROR_TYPES.notFound,
        code: ERROR_CODES.notFound,
      });
    }
    // This key's spend only (its index), not every key's: the studio reads it after each request.
    const own = await deps.usage.totals({ groupBy: 'key', apiKeyId: record.id });
    res.json({
      record: await view(record, new Map(own.map((row) => [row.key, row] as const))),
    });
  });

  router.post('/keys', async (req, res) => {
    const body = parse(createKeyBodySchema, req.body);
    const { key, record } = await deps.keys.create(body);
    res.setHeader('cache-control', 'no-store');
    res.json({ key, record: await view(record, await spend()) });
  });

  router.patch('/keys/:id', async (req, res) => {
    const body = parse(patchKeyBodySchema, req.body);
    const id = (await existing(req.params.id)).id;
    if (body.status === 'disabled') refuseForStudio(id, 'disabled');
    const { status, ...labels } = body;
    if (Object.keys(labels).length > 0) await deps.keys.update(id, labels);
    if (status) await deps.keys.setStatus(id, status);
    res.json({ record: await view(await existing(id), await spend()) });
  });

  router.delete('/keys/:id', async (req, res) => {
    const id = (await existing(req.params.id)).id;
    refuseForStudio(id, 'deleted');
    await deps.keys.remove(id);
    res.json({ ok: true });
  });

  return router;
}
