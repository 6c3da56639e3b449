import express, { Router } from 'express';
import { fromAgentClient, inputText, withImageTool } from '../../imageService/responsesBody';
import { reserveKeyLimits } from '../../limits/middleware';
import { responsesDemand } from '../../limits/responsesDemand';
import { checkPrompt, contentPolicyError, type FilterMode } from '../../contentFilter/checkPrompt';
import { parseResponsesRequest } from '../../validation/responsesRequest';
import { relayResponses, type ResponsesRelayDeps } from '../replies/responsesRelay';
import { registerWork, usageNotes } from '../requestContext';

/** Responses inputs may carry images as data URLs. */
const RESPONSES_BODY_LIMIT = '200mb';

export interface ResponsesDeps extends ResponsesRelayDeps {
  textModels: () => readonly string[];
  injectImageTool: () => boolean;
  contentFilter: () => FilterMode;
}

export function responsesRouter(deps: ResponsesDeps): Router {
  const router = Router();
  router.post('/responses', express.json({ limit: RESPONSES_BODY_LIMIT }), async (req, res) => {
    const raw = (req.body ?? {}) as Record<string, unknown>;
    if (typeof raw.model === 'string')
      usageNotes(res).requested({ model: raw.model.slice(0, 100) });
    const fromAgent = fromAgentClient({
      originator: req.headers.originator,
      userAgent: req.headers['user-agent'],
    });
    const body = fromAgent && deps.injectImageTool() ? withImageTool(raw) : raw;
    const parsed = parseResponsesRequest(body, deps.textModels());
    // The pre-filter reads what the caller wrote (the text parts of `input` and `instructions`).
    const verdict = checkPrompt(inputText(parsed.body), deps.contentFilter());
    if (!verdict.allowed) throw contentPolicyError(verdict);
    // Priced before it is admitted: the text model's tokens and the image the tool may make.
    reserveKeyLimits(res, responsesDemand(parsed));
    await registerWork(res, relayResponses(res, deps, parsed));
  });
  return router;
}
