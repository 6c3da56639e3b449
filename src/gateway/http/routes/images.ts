import express, { Router, type Request, type Response } from 'express';
import { invalidParam } from '../../errors';
import { track, usageNotes } from '../usageContext';
import { parseEditJson, parseEditMultipart } from '../../validation/editRequest';
import { checkDecodable } from '../../validation/editRules';
import { parseGenerationRequest } from '../../validation/generationRequest';
import { validCount } from '../../validation/imageOptions';
import { serveImages, type ServeImagesDeps } from './serveImages';

/**
 * Generation bodies are small. The JSON edit form carries its images as base64 text, and the body
 * becomes one JavaScript string: V8 caps strings near 512 MB, so the JSON form stops at 400 MB and
 * multipart (which has no such cap) is the form for many large references.
 */
const GENERATION_BODY_LIMIT = '1mb';
const EDIT_JSON_BODY_LIMIT = '400mb';

export function imagesRouter(deps: ServeImagesDeps): Router {
  const router = Router();

  router.post(
    '/images/generations',
    express.json({ limit: GENERATION_BODY_LIMIT }),
    async (req, res) => {
      noteRawFields(req, res);
      if (!req.is('application/json')) throw notJson();
      const options = parseGenerationRequest(req.body);
      await track(res, serveImages(res, deps, { operation: 'generate', options, images: [] }));
    },
  );

  router.post('/images/edits', express.json({ limit: EDIT_JSON_BODY_LIMIT }), async (req, res) => {
    const edit = await parseEdit(req, res);
    await track(res, serveImages(res, deps, { operation: 'edit', ...edit }));
  });

  return router;
}

/** Edits come as multipart (files as they are) or JSON (images as data URLs). */
async function parseEdit(req: Request, res: Response) {
  if (req.is('multipart/form-data')) {
    const edit = await parseEditMultipart(req);
    await checkDecodable(edit, () => 'image');
    return edit;
  }
  noteRawFields(req, res);
  if (!req.is('application/json')) {
    throw invalidParam(
      'image',
      'Edits take multipart/form-data (image[] files, optional mask) or a JSON body with images[].image_url.',
    );
  }
  const edit = parseEditJson(req.body);
  await checkDecodable(edit, (i) => `images[${i}].image_url`);
  return edit;
}

function notJson() {
  return invalidParam(
    'body',
    'This endpoint takes a JSON body with Content-Type: application/json.',
  );
}

/** Even a request that fails validation is recorded with the model and size it asked for. */
function noteRawFields(req: Request, res: Response): void {
  const body = (req.body ?? {}) as Record<string, unknown>;
  usageNotes(res).requested({
    model: typeof body.model === 'string' ? body.model.slice(0, 100) : undefined,
    size: typeof body.size === 'string' ? body.size.slice(0, 20) : undefined,
    // Only a valid count: 1e300 or 2.5 must not reach the record's integer column.
    n: validCount(body.n) ?? undefined,
    stream: body.stream === true ? true : undefined,
  });
}
