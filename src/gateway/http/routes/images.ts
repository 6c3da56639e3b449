import express, { Router, type Response } from 'express';
import { planImageRun } from '../../imageService/plan';
import { runImagePlan, type ImageServiceDeps } from '../../imageService/run';
import type { ImageRequest } from '../../imageService/types';
import { parseGenerationRequest } from '../../validation/generationRequest';
import { parseEdit, notJson } from '../imageBodies';
import { imageReply, type ImageReplyDeps } from '../replies/imageReply';
import { imageCaller, noteRawFields } from '../requestContext';
import { scopeOf } from '../requestScope';

/**
 * Generation bodies are small. The JSON edit form carries its images as base64 text, and the body
 * becomes one JavaScript string: V8 caps strings near 512 MB, so the JSON form stops at 400 MB and
 * multipart (which has no such cap) is the form for many large references.
 */
const GENERATION_BODY_LIMIT = '1mb';
const EDIT_JSON_BODY_LIMIT = '400mb';

/** Says what was accepted for an older client but ignored or read differently. */
export const WARNING_HEADER = 'x-atelier-warning';

export type ImagesRouteDeps = ImageServiceDeps & ImageReplyDeps;

export function imagesRouter(deps: ImagesRouteDeps): Router {
  const router = Router();

  router.post(
    '/images/generations',
    express.json({ limit: GENERATION_BODY_LIMIT }),
    async (req, res) => {
      const scope = scopeOf(res);
      noteRawFields(req, scope);
      if (!req.is('application/json')) throw notJson();
      const options = parseGenerationRequest(req.body);
      await scope.work(planRunReply(res, deps, { operation: 'generate', options, images: [] }));
    },
  );

  router.post('/images/edits', express.json({ limit: EDIT_JSON_BODY_LIMIT }), async (req, res) => {
    const edit = await parseEdit(req, res);
    await scopeOf(res).work(planRunReply(res, deps, { operation: 'edit', ...edit }));
  });

  return router;
}

/** The service plans and runs the request; the reply turns the run into bytes. */
async function planRunReply(res: Response, deps: ImagesRouteDeps, request: ImageRequest) {
  const plan = await planImageRun(deps, request, imageCaller(res), {
    publishUrls: deps.urlImages !== undefined,
  });
  const { notices } = request.options;
  if (notices) res.setHeader(WARNING_HEADER, notices.join('; '));
  await runImagePlan(deps, plan, imageReply(res, deps, plan));
}
