import express, { Router, type Response } from 'express';
import { planImageRun } from '../../imageService/plan';
import { runImagePlan, type ImageServiceDeps } from '../../imageService/run';
import type { ImagePlan, ImageRequest } from '../../imageService/types';
import { RUN_ID_PATTERN, STUDIO_RUN_HEADER } from '../../../shared/admin';
import { ApiError } from '../../core/errors';
import type { ResponseJobs } from '../../responseJobs/jobs';
import { imageJobReply } from '../replies/imageJobReply';
import { jobSse, streamJob } from '../replies/jobStream';
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

export type ImagesRouteDeps = ImageServiceDeps &
  ImageReplyDeps & {
    /** The studio's runs run as jobs (responseJobs/); without it they run on their connection. */
    jobs?: ResponseJobs;
  };

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
  const plan = planImageRun(deps, request, imageCaller(res), {
    publishUrls: deps.urlImages !== undefined,
  });
  const { notices } = request.options;
  if (notices) res.setHeader(WARNING_HEADER, notices.join('; '));
  const job = deps.jobs ? await studioRunJob(res, deps.jobs, plan) : null;
  if (deps.jobs && job) {
    await runAsJob(res, deps, deps.jobs, plan, job);
    return;
  }
  await runImagePlan(deps, plan, imageReply(res, deps, plan));
}

/**
 * A studio run (the studio's session, a run id in `x-atelier-run`) runs as a job: planned as any
 * request (a refusal is answered as usual), then detached from its connection, its events
 * numbered and kept, so a page that closes or reloads finds it again (GET
 * /api/admin/runs/live) and follows it from where it is. Null for every other request, and for
 * a run id that already has a job.
 */
async function studioRunJob(res: Response, jobs: ResponseJobs, plan: ImagePlan) {
  const scope = scopeOf(res);
  const runId = res.req.headers[STUDIO_RUN_HEADER];
  if (!scope.studioSession || typeof runId !== 'string' || !RUN_ID_PATTERN.test(runId)) {
    return null;
  }
  const { options } = plan.request;
  return jobs.createStudioRun(scope.key.id, scope.id, runId, {
    endpoint: plan.request.operation === 'generate' ? 'generations' : 'edits',
    model: options.model,
    prompt: options.prompt,
    size: options.size.text,
    quality: options.quality ?? 'auto',
    n: options.n,
    parentImageId: scope.parentImageId,
  });
}

/** Runs the plan into its job; the caller's connection follows the job. Resolves when it ends. */
async function runAsJob(
  res: Response,
  deps: ImagesRouteDeps,
  jobs: ResponseJobs,
  plan: ImagePlan,
  job: { id: string; signal: AbortSignal },
): Promise<void> {
  const scope = scopeOf(res);
  scope.stopOn(job.signal);
  // What the run owes is kept in its job: the page leaving is not "client closed".
  scope.runsInBackground();
  const detached: ImagePlan = {
    ...plan,
    caller: { ...plan.caller, signal: scope.signal, connected: () => false },
  };
  jobs.running(job.id);
  const work = runImagePlan(
    deps,
    detached,
    imageJobReply(jobSse(jobs, job.id, scope), detached, deps.now),
  ).catch((error: unknown) => {
    const apiError = error instanceof ApiError ? error : null;
    const message = error instanceof Error ? error.message : String(error);
    plan.caller.usage.failedUnlessNoted({
      status: apiError?.status ?? 502,
      code: apiError?.code ?? 'upstream_error',
      message,
    });
    jobs.fail(job.id, { code: apiError?.code ?? null, message });
  });
  // This connection follows the job like any page that comes back to it.
  streamJob(jobs, job.id, -1, res);
  // The route's `scope.work` holds this: the request is over when the job's run is.
  await work;
}
