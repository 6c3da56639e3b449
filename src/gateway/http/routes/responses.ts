import express, { Router, type Response } from 'express';
import { IMAGE_MODELS } from '../../../shared/models';
import { normaliseUsage } from '../../billing/normaliseUsage';
import { failureToApiError } from '../../dispatch/failureToApiError';
import type { UpstreamPool } from '../../dispatch/pool';
import { upstreamTimeoutFor } from '../../dispatch/timeouts';
import { UpstreamError } from '../../upstream/errors';
import { parseSplicedJson } from '../../upstream/jsonSplice';
import type { UsageDraft } from '../../usage/draft';
import { track } from '../../usage/recorder';
import { parseResponsesRequest } from '../../validation/responsesRequest';
import { openSse } from '../sse';

/** Responses inputs may carry images as data URLs. */
const RESPONSES_BODY_LIMIT = '200mb';

export interface ResponsesDeps {
  pool: UpstreamPool;
  textModels: () => readonly string[];
  now: () => number;
}

interface ResponseShape {
  usage?: unknown;
  tool_usage?: { image_gen?: unknown };
  output?: Array<{ type?: string; result?: unknown }>;
  error?: { message?: string; code?: string } | null;
  incomplete_details?: { reason?: string } | null;
  status?: string;
}

interface EventShape {
  type?: string;
  response?: ResponseShape;
  message?: string;
  code?: string;
}

export function responsesRouter(deps: ResponsesDeps): Router {
  const router = Router();
  router.post('/responses', express.json({ limit: RESPONSES_BODY_LIMIT }), async (req, res) => {
    const draft = res.locals.usage as UsageDraft;
    const raw = (req.body ?? {}) as Record<string, unknown>;
    if (typeof raw.model === 'string') draft.model = raw.model.slice(0, 100);
    const parsed = parseResponsesRequest(req.body, deps.textModels());
    await track(res, relay(res, deps, parsed));
  });
  return router;
}

async function relay(
  res: Response,
  deps: ResponsesDeps,
  parsed: ReturnType<typeof parseResponsesRequest>,
): Promise<void> {
  const draft = res.locals.usage as UsageDraft;
  const upstream = deps.pool.pick();
  const tool = parsed.imageTool;
  const imageModel = tool?.model ?? IMAGE_MODELS[0];
  Object.assign(draft, {
    model: parsed.model,
    stream: parsed.stream,
    size: tool?.size ?? null,
    quality: tool?.quality ?? null,
    outputFormat: tool?.outputFormat ?? null,
    accountId: upstream.account.id,
    accountName: upstream.account.name,
  });
  const body: Record<string, unknown> = {
    ...parsed.body,
    model: upstream.account.modelMap[parsed.model] ?? parsed.model,
  };
  if (tool && Array.isArray(body.tools)) {
    body.tools = body.tools.map((t: unknown, i: number) =>
      i === tool.index
        ? { ...(t as object), model: upstream.account.modelMap[imageModel] ?? imageModel }
        : t,
    );
  }
  const bill = (response: ResponseShape | undefined) => {
    if (!response) return;
    draft.parts = [
      { model: parsed.model, usage: normaliseUsage(response.usage, { imageModel: false }) },
      {
        model: imageModel,
        usage: normaliseUsage(response.tool_usage?.image_gen, { imageModel: true }),
      },
    ];
    draft.images = (response.output ?? []).filter(
      (item) => item.type === 'image_generation_call' && item.result,
    ).length;
  };

  let reply;
  try {
    reply = await upstream.responses(body, {
      stream: parsed.stream,
      signal: res.locals.signal as AbortSignal,
      timeoutMs: upstreamTimeoutFor(tool?.size ?? 'auto'),
    });
  } catch (error) {
    if (error instanceof UpstreamError) throw failureToApiError(error.failure, deps.now());
    throw error;
  }

  if (!reply.events) {
    const doc = parseSplicedJson<ResponseShape>(reply.body ?? Buffer.alloc(0));
    bill(doc.value);
    res.status(reply.status).type('application/json').end(reply.body);
    return;
  }

  // Events pass through byte for byte (openai-node's responses.stream() checks their order);
  // we only read them, with the base64 cut out, to bill the image from the tool's own usage.
  const sse = openSse(res);
  for await (const event of reply.events) {
    sse.raw(event.raw);
    const type = event.event ?? '';
    if (
      type === 'response.completed' ||
      type === 'response.failed' ||
      type === 'response.incomplete' ||
      type === 'error'
    ) {
      const doc = parseSplicedJson<EventShape>(event.data);
      bill(doc.value.response);
      if (type === 'response.failed' || type === 'error') {
        const message =
          doc.value.response?.error?.message ?? doc.value.message ?? 'the upstream response failed';
        draft.streamError = { status: 502, code: 'upstream_http_error', message };
      } else if (type === 'response.incomplete') {
        const reason = doc.value.response?.incomplete_details?.reason ?? 'unknown';
        draft.streamError = {
          status: 502,
          code: reason === 'content_filter' ? 'upstream_refused' : 'upstream_no_image',
          message: `incomplete: ${reason}`,
        };
      }
    }
  }
  sse.end();
}
