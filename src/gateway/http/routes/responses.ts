import express, { Router, type Response } from 'express';
import { ERROR_CODES, ERROR_TYPES } from '../../../shared/errors';
import { ApiError, invalidParam } from '../../core/errors';
import { fromAgentClient, withImageTool } from '../../imageService/responsesBody';
import {
  planResponses,
  runResponses,
  type ResponsesServiceDeps,
} from '../../imageService/responses';
import { RESPONSE_JOB_PREFIX, type ResponseJobs } from '../../responseJobs/jobs';
import { parseResponsesRequest, type ResponsesRequest } from '../../validation/responsesRequest';
import { responsesRelayReply } from '../replies/responsesRelay';
import { startingAfter, streamJob } from '../replies/jobStream';
import { imageCaller } from '../requestContext';
import { scopeOf } from '../requestScope';

/** Responses inputs may carry images as data URLs. */
const RESPONSES_BODY_LIMIT = '200mb';

export interface ResponsesDeps extends ResponsesServiceDeps {
  textModels: () => readonly string[];
  injectImageTool: () => boolean;
  /** Background responses (`background: true`); without it the parameter goes upstream as is. */
  jobs?: ResponseJobs;
}

/** Parse, plan, run, reply: the service relays the call, the reply writes its bytes. */
export function responsesRouter(deps: ResponsesDeps): Router {
  const router = Router();
  router.post('/responses', express.json({ limit: RESPONSES_BODY_LIMIT }), async (req, res) => {
    const scope = scopeOf(res);
    const raw = (req.body ?? {}) as Record<string, unknown>;
    if (typeof raw.model === 'string') scope.usage.requested({ model: raw.model.slice(0, 100) });
    const fromAgent = fromAgentClient({
      originator: req.headers.originator,
      userAgent: req.headers['user-agent'],
    });
    const body = fromAgent && deps.injectImageTool() ? withImageTool(raw) : raw;
    const request = parseResponsesRequest(body, deps.textModels());
    if (deps.jobs && readBackground(raw.background)) {
      await startInBackground(deps, deps.jobs, request, res);
      return;
    }
    const plan = planResponses(deps, request, imageCaller(res));
    await scope.work(runResponses(deps, plan, responsesRelayReply(res)));
  });
  if (deps.jobs) jobRoutes(router, deps.jobs);
  return router;
}

function readBackground(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalidParam('background', 'background must be a boolean');
  return value;
}

/**
 * `background: true`: the request is planned now (refusals are answered now, as usual), then runs
 * as a job: always streamed from the upstream so every event is kept, its reply written into the
 * job. The caller gets the job at once (`queued`), or with `stream: true` the job's events as
 * they come; leaving does not stop it.
 */
async function startInBackground(
  deps: ResponsesDeps,
  jobs: ResponseJobs,
  request: ResponsesRequest,
  res: Response,
): Promise<void> {
  const scope = scopeOf(res);
  const { background: _background, ...upstreamBody } = request.body;
  void _background;
  const streamed: ResponsesRequest = {
    ...request,
    stream: true,
    body: { ...upstreamBody, stream: true },
  };
  const job = await jobs.create(scope.key.id, scope.id, request.body);
  scope.stopOn(job.signal);
  // The job, not this connection, is what the caller is owed: the usage record must not call
  // it "client closed" when the caller leaves a background stream.
  scope.runsInBackground();
  const caller = { ...imageCaller(res), connected: () => false };
  let plan: ReturnType<typeof planResponses>;
  try {
    plan = planResponses(deps, streamed, caller);
  } catch (error) {
    // Refused before any work (a key limit, the content filter): answered as usual, and the job,
    // which will never run, is over.
    jobs.fail(job.id, {
      code: error instanceof ApiError ? error.code : null,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
  void scope.work(
    runResponses(deps, plan, jobs.reply(job.id)).catch((error: unknown) => {
      const apiError = error instanceof ApiError ? error : null;
      const message = error instanceof Error ? error.message : String(error);
      caller.usage.failedUnlessNoted({
        status: apiError?.status ?? 502,
        code: apiError?.code ?? 'upstream_error',
        message,
      });
      jobs.fail(job.id, { code: apiError?.code ?? null, message });
    }),
  );
  if (request.stream) streamJob(jobs, job.id, -1, res);
  else res.json(job.response);
}

const notFound = (id: string) =>
  new ApiError(
    404,
    `No response with id '${id.slice(0, 100)}' (responses are kept 24 hours, for the key that made them).`,
    {
      type: ERROR_TYPES.notFound,
      code: ERROR_CODES.notFound,
      param: 'response_id',
    },
  );

/** A background response of the key's; the studio's runs are jobs too, but not responses. */
function responseJob(jobs: ResponseJobs, keyId: string, id: string) {
  return id.startsWith(RESPONSE_JOB_PREFIX) ? jobs.get(keyId, id) : Promise.resolve(null);
}

function jobRoutes(router: Router, jobs: ResponseJobs): void {
  router.get('/responses/:id', async (req, res) => {
    const id = req.params.id;
    const row = await responseJob(jobs, scopeOf(res).key.id, id);
    if (!row) throw notFound(id);
    const stream = req.query.stream === 'true';
    if (!stream) {
      res.type('application/json').send(row.response);
      return;
    }
    streamJob(jobs, id, startingAfter(req.query.starting_after), res);
  });
  router.post('/responses/:id/cancel', async (req, res) => {
    const id = req.params.id;
    const row = await responseJob(jobs, scopeOf(res).key.id, id);
    if (!row) throw notFound(id);
    const cancelled = await jobs.cancel(
      row,
      'cancelled by the client (POST /v1/responses/{id}/cancel)',
    );
    if (!cancelled) {
      throw invalidParam(
        'response_id',
        `Only a queued or in-progress background response can be cancelled; this one is ${row.status}.`,
      );
    }
    res.type('application/json').send(cancelled.response);
  });
}
