import express, { Router } from 'express';
import { IMAGE_MODELS } from '../../../shared/models';
import { fromAgentClient, inputText, withImageTool } from '../../imageService/responsesBody';
import { reserveKeyLimits } from '../../limits/middleware';
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
    // A key's limits see the image the tool may make; the text model's tokens are not estimated.
    const tool = parsed.imageTool;
    reserveKeyLimits(
      res,
      tool && {
        model: tool.model ?? IMAGE_MODELS[0],
        prompt: inputText(parsed.body),
        size: tool.size ?? 'auto',
        quality: tool.quality,
        n: 1,
        partialImages: parsed.stream ? (tool.partialImages ?? 0) : 0,
      },
    );
    await registerWork(res, relayResponses(res, deps, parsed));
  });
  return router;
}
