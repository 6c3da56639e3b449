import fs from 'node:fs/promises';
import express, { Router } from 'express';
import {
  MAX_STUDIO_WORK_FILE_BYTES,
  studioWorkParamsSchema,
  type StudioWorkList,
} from '../../../shared/admin';
import { ERROR_CODES, ERROR_TYPES } from '../../../shared/errors';
import { ApiError } from '../../core/errors';
import { WorkFilesFull, type WorkFiles } from '../../gallery/workFiles';
import { notFound, parse } from './parse';

export interface StudioWorkAdminDeps {
  workFiles: WorkFiles;
}

/**
 * /api/admin/studio/work: Edit's reference images, chain steps and mask as bytes, kept by the
 * gateway beside the studio state document that names them (issue 22).
 */
export function studioWorkAdmin(deps: StudioWorkAdminDeps): Router {
  const router = Router();
  const keyOf = (raw: string) => parse(studioWorkParamsSchema, { key: raw }).key;
  // Any content type: the bytes are kept as they came. The limit is checked against
  // Content-Length before a byte is read, and counted while reading when there is none.
  const bytes = express.raw({ type: () => true, limit: MAX_STUDIO_WORK_FILE_BYTES });

  router.get('/studio/work', async (_req, res) => {
    res.json({ files: await deps.workFiles.list() } satisfies StudioWorkList);
  });

  router.get('/studio/work/:key', async (req, res) => {
    const file = await deps.workFiles.find(keyOf(req.params.key));
    if (!file) throw notFound('studio work file');
    // Opened once and read from that handle: a PUT replaces the file by rename at any moment, and
    // sendFile's stat-then-open by path sent the old file's length of the new one's bytes (a
    // record cut short mid-JSON, seen under load). The handle keeps one version whole.
    const handle = await fs.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ENOENT' ? notFound('studio work file') : error;
    });
    try {
      const bytes = await handle.readFile();
      res.type('application/octet-stream');
      res.setHeader('x-content-type-options', 'nosniff');
      res.end(bytes);
    } finally {
      await handle.close();
    }
  });

  router.put('/studio/work/:key', bytes, async (req, res) => {
    const key = keyOf(req.params.key);
    const body: unknown = req.body;
    if (!Buffer.isBuffer(body) || body.length === 0) {
      throw new ApiError(400, 'The request body is empty: send the file as bytes.', {
        type: ERROR_TYPES.invalidRequest,
        code: ERROR_CODES.invalidValue,
        param: 'body',
      });
    }
    try {
      await deps.workFiles.put(key, body);
    } catch (error) {
      if (!(error instanceof WorkFilesFull)) throw error;
      throw new ApiError(413, `${error.message} Remove some before adding more.`, {
        type: ERROR_TYPES.invalidRequest,
        code: ERROR_CODES.fileTooLarge,
        param: 'body',
      });
    }
    res.json({ ok: true });
  });

  router.delete('/studio/work/:key', async (req, res) => {
    if (!(await deps.workFiles.remove(keyOf(req.params.key)))) throw notFound('studio work file');
    res.json({ ok: true });
  });

  return router;
}
