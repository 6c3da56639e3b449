import express, { Router, type Response } from 'express';
import { IMAGE_MODELS } from '../../../shared/models';
import { normaliseUsage } from '../../billing/normaliseUsage';
import { dispatchCall, toCallerError, type Dispatcher } from '../../dispatch/dispatchCall';
import { upstreamTimeoutFor } from '../../dispatch/timeouts';
import { requestedPixels, weightOf } from '../../dispatch/weights';
import type { SseEvent } from '../../upstream/types';
import type { AuthenticatedKey } from '../auth';
import { parseSplicedJson } from '../../upstream/jsonSplice';
import { eventData } from '../../upstream/sseParser';
import type { PricedUsage, UsageNotes } from '../../usage/notes';
import { reserveKeyLimits } from '../../limits/middleware';
import { checkPrompt, contentPolicyError, type FilterMode } from '../../policy/contentFilter';
import { parseResponsesRequest } from '../../validation/responsesRequest';
import { ResponsesImageTap, type ResponsesImageDelivery } from '../responsesImages';
import { openSse } from '../replies/sse';
import { track, usageNotes } from '../usageContext';

/** Responses inputs may carry images as data URLs. */
const RESPONSES_BODY_LIMIT = '200mb';

export interface ResponsesDeps {
  dispatcher: Dispatcher;
  textModels: () => readonly string[];
  injectImageTool: () => boolean;
  contentFilter: () => FilterMode;
  now: () => number;
  /** Sees the images a call made once it is over (the gallery keeps them). */
  onImagesDelivered?: (delivery: ResponsesImageDelivery) => void;
}

interface ResponseShape {
  usage?: unknown;
  tool_usage?: { image_gen?: unknown };
  output?: Array<{
    type?: string;
    result?: unknown;
    output_format?: unknown;
    size?: unknown;
    quality?: unknown;
  }>;
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

/** Official agent clients identify themselves; they get the image tool when they leave it out. */
const AGENT_CLIENT = /codex/i;

export function responsesRouter(deps: ResponsesDeps): Router {
  const router = Router();
  router.post('/responses', express.json({ limit: RESPONSES_BODY_LIMIT }), async (req, res) => {
    const raw = (req.body ?? {}) as Record<string, unknown>;
    if (typeof raw.model === 'string')
      usageNotes(res).requested({ model: raw.model.slice(0, 100) });
    const fromAgent =
      AGENT_CLIENT.test(String(req.headers.originator ?? '')) ||
      AGENT_CLIENT.test(String(req.headers['user-agent'] ?? ''));
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
    await track(res, relay(res, deps, parsed));
  });
  return router;
}

/** The caller's own words in a Responses body: `input` as text or as messages of text parts. */
export function inputText(body: Record<string, unknown>): string {
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const part = value as { type?: unknown; text?: unknown; content?: unknown };
      if (typeof part.text === 'string') texts.push(part.text);
      if (part.content !== undefined) visit(part.content);
    }
  };
  visit(body.input);
  if (typeof body.instructions === 'string') texts.push(body.instructions);
  return texts.join('\n');
}

function withImageTool(body: Record<string, unknown>): Record<string, unknown> {
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ type?: unknown }>) : [];
  if (tools.some((t) => t?.type === 'image_generation')) return body;
  return { ...body, tools: [...tools, { type: 'image_generation' }] };
}

/** A value the upstream stated, unless it is missing or still `auto`. */
function concrete(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && value !== 'auto' ? value.slice(0, 20) : null;
}

/** A failure after bytes went to the client: not retried or failed over (it would repeat output). */
class RelayError extends Error {}

async function relay(
  res: Response,
  deps: ResponsesDeps,
  parsed: ReturnType<typeof parseResponsesRequest>,
): Promise<void> {
  const usage = usageNotes(res);
  const key = res.locals.apiKey as AuthenticatedKey;
  const tool = parsed.imageTool;
  const imageModel = tool?.model ?? IMAGE_MODELS[0];
  usage.requested({
    model: parsed.model,
    stream: parsed.stream,
    size: tool?.size ?? null,
    quality: tool?.quality ?? null,
    outputFormat: tool?.outputFormat ?? null,
  });
  const bill = (response: ResponseShape | undefined) => {
    if (!response) return;
    const parts: PricedUsage[] = [
      { model: parsed.model, usage: normaliseUsage(response.usage, { imageModel: false }) },
      // The image is billed from the tool's own usage: response.usage is the text model's.
      {
        model: imageModel,
        usage: normaliseUsage(response.tool_usage?.image_gen, { imageModel: true }),
      },
    ];
    const made = (response.output ?? []).filter(
      (item) => item.type === 'image_generation_call' && item.result,
    );
    // What the first image really is, as the upstream describes it (the tool may name nothing).
    const first = made[0];
    usage.delivered({
      parts,
      images: made.length,
      deliveredSize: first ? concrete(first.size) : null,
      deliveredQuality: first ? concrete(first.quality) : null,
    });
    if (!tool?.outputFormat && first)
      usage.requested({ outputFormat: concrete(first.output_format) });
  };

  const target = {
    group: key.group,
    pixels: tool ? requestedPixels(tool.size) : 0,
    weight: tool ? weightOf(tool.size) : 1,
    signal: res.locals.signal as AbortSignal,
  };
  const tap = deps.onImagesDelivered ? new ResponsesImageTap() : null;
  try {
    // The slot is held for the whole relay: a streamed image keeps the account busy until it ends.
    await dispatchCall(deps.dispatcher, target, async (upstream) => {
      usage.dispatched(upstream.account);
      const map = (model: string) => upstream.account.modelMap[model] ?? model;
      const body: Record<string, unknown> = { ...parsed.body, model: map(parsed.model) };
      if (tool && Array.isArray(body.tools)) {
        body.tools = body.tools.map((t: unknown, i: number) =>
          i === tool.index ? { ...(t as object), model: map(imageModel) } : t,
        );
      }
      const reply = await upstream.responses(body, {
        stream: parsed.stream,
        signal: target.signal,
        timeoutMs: upstreamTimeoutFor(tool?.size ?? 'auto', deps.dispatcher.timeouts()),
      });
      try {
        if (reply.events) await streamEvents(res, reply.events, bill, usage, tap);
        else {
          const doc = parseSplicedJson<ResponseShape>(reply.body ?? Buffer.alloc(0));
          bill(doc.value);
          tap?.response(doc, doc.value);
          res.status(reply.status).type('application/json').end(reply.body);
        }
      } catch (error) {
        throw new RelayError(error instanceof Error ? error.message : String(error));
      }
    });
  } catch (error) {
    const callerError = toCallerError(error, deps.now());
    if (callerError && !res.headersSent) throw callerError;
    if (!res.headersSent) throw error;
    // Mid-stream: the error event (if any) was relayed; record and close.
    usage.failedUnlessNoted({
      status: 502,
      code: 'upstream_network_error',
      message: error instanceof Error ? error.message : String(error),
    });
    res.end();
  } finally {
    if (tap && tap.images().length > 0) {
      deps.onImagesDelivered?.({
        res,
        usage,
        tool,
        prompt: inputText({ input: parsed.body.input }),
        images: tap.images(),
        imageUsage: tap.imageUsage(),
        connected: !res.destroyed,
      });
    }
  }
}

/**
 * Events pass through byte for byte (openai-node's responses.stream() checks their order); they
 * are only read, after forwarding and with the base64 cut out, to bill the image, notice
 * failures and let the gallery keep the finished images.
 */
async function streamEvents(
  res: Response,
  events: AsyncIterable<SseEvent>,
  bill: (response: ResponseShape | undefined) => void,
  usage: UsageNotes,
  tap: ResponsesImageTap | null,
): Promise<void> {
  const sse = openSse(res);
  for await (const event of events) {
    sse.raw(event.rawPieces ?? [event.raw]);
    const type = event.event ?? '';
    if (type === 'response.output_item.done') tap?.outputItemDone(eventData(event) ?? []);
    if (
      type !== 'response.completed' &&
      type !== 'response.failed' &&
      type !== 'response.incomplete' &&
      type !== 'error'
    )
      continue;
    const doc = parseSplicedJson<EventShape>(eventData(event) ?? []);
    bill(doc.value.response);
    tap?.response(doc, doc.value.response);
    if (type === 'response.failed' || type === 'error') {
      const message =
        doc.value.response?.error?.message ?? doc.value.message ?? 'the upstream response failed';
      usage.failed({ status: 502, code: 'upstream_http_error', message });
    } else if (type === 'response.incomplete') {
      const reason = doc.value.response?.incomplete_details?.reason ?? 'unknown';
      usage.failed({
        status: 502,
        code: reason === 'content_filter' ? 'upstream_refused' : 'upstream_no_image',
        message: `incomplete: ${reason}`,
      });
    }
  }
  sse.end();
}
