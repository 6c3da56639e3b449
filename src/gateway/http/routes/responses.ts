import express, { Router } from 'express';
import { fromAgentClient, withImageTool } from '../../imageService/responsesBody';
import {
  planResponses,
  runResponses,
  type ResponsesServiceDeps,
} from '../../imageService/responses';
import { parseResponsesRequest } from '../../validation/responsesRequest';
import { responsesRelayReply } from '../replies/responsesRelay';
import { imageCaller } from '../requestContext';
import { scopeOf } from '../requestScope';

/** Responses inputs may carry images as data URLs. */
const RESPONSES_BODY_LIMIT = '200mb';

export interface ResponsesDeps extends ResponsesServiceDeps {
  textModels: () => readonly string[];
  injectImageTool: () => boolean;
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
    const plan = planResponses(deps, request, imageCaller(res));
    await scope.work(runResponses(deps, plan, responsesRelayReply(res)));
  });
  return router;
}
