import { IMAGE_MODELS } from '../../shared/models';
import { ownValue } from '../../shared/ownProperty';
import { parseSplicedJson } from '../bytes/jsonSplice';
import { AUTO_SIZE } from '../core/requestedSize';
import { UpstreamError } from '../core/upstreamError';
import { checkPrompt, contentPolicyError } from '../contentFilter/checkPrompt';
import { dispatchCall, toCallerError, type Dispatch } from '../dispatch/dispatchCall';
import { requestedPixels, upstreamTimeoutFor, weightOf } from '../dispatch/sizeClass';
import type { AdmissionRequest } from '../billing/admission';
import { eventData, type SseEvent } from '../bytes/sse';
import type { ResponsesRequest } from '../validation/responsesRequest';
import { billResponse, type EventShape, type ResponseShape } from './responsesBilling';
import { inputText } from './responsesBody';
import { ResponsesImageTap } from './responsesImages';
import type { GalleryPort } from '../gallery/port';
import type { ImageCaller, KeyLimitsPort, LiveImageSettings, ResponsesRunReply } from './types';

/*
 * /v1/responses as a service, read like the image endpoints: plan (the content filter, the
 * estimate reserved against the key's limits, the notes), then run (the call relayed through
 * dispatch, billed from what comes back, the images handed to the gallery). The reply
 * (http/replies/responsesRelay.ts) only writes the bytes.
 */

export interface ResponsesServiceDeps {
  dispatch: Dispatch;
  settings: Pick<LiveImageSettings, 'contentFilter'>;
  limits: KeyLimitsPort;
  now: () => number;
  /** Sees the images a call made once it is over (and keeps them). */
  gallery?: Pick<GalleryPort, 'keepResponsesImages'>;
}

/** What the service decided before the call goes upstream. */
export interface ResponsesPlan {
  request: ResponsesRequest;
  caller: ImageCaller;
  /** The caller's own words (`input` and `instructions` as text): filtered, estimated, kept. */
  prompt: string;
}

/**
 * Everything decided before any upstream work: the content pre-filter, the key's limits against
 * the estimate, the `requested` note.
 */
export async function planResponses(
  deps: ResponsesServiceDeps,
  request: ResponsesRequest,
  caller: ImageCaller,
): Promise<ResponsesPlan> {
  // The pre-filter reads what the caller wrote (the text parts of `input` and `instructions`).
  const prompt = inputText(request.body);
  const verdict = checkPrompt(prompt, deps.settings.contentFilter());
  if (!verdict.allowed) throw contentPolicyError(verdict);
  // Priced before it is admitted (the usage notes keep the estimate and the prices it is billed
  // at), then reserved against the key's limits.
  const admission = caller.usage.admit(responsesDemand(request, prompt));
  await deps.limits.reserveEstimate(caller.requestId, caller.key, admission, deps.now());
  const tool = request.imageTool;
  caller.usage.requested({
    model: request.model,
    stream: request.stream,
    size: tool?.size?.text ?? null,
    quality: tool?.quality ?? null,
    outputFormat: tool?.outputFormat ?? null,
  });
  return { request, caller, prompt };
}

/**
 * What a Responses call may use, read before it is admitted: the text model's tokens (the
 * caller's words, its output bound, its input images) and, with the image tool, one image.
 */
export function responsesDemand(request: ResponsesRequest, prompt: string): AdmissionRequest {
  const tool = request.imageTool;
  return {
    text: {
      model: request.model,
      text: prompt,
      maxOutputTokens: positiveInteger(request.body.max_output_tokens),
      inputImages: countInputImages(request.body.input),
    },
    image: tool && {
      model: tool.model ?? IMAGE_MODELS[0],
      prompt,
      size: tool.size ?? AUTO_SIZE,
      quality: tool.quality,
      n: 1,
      partialImages: request.stream ? (tool.partialImages ?? 0) : 0,
    },
  };
}

function positiveInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** `input_image` parts anywhere in the input items (own properties only). */
function countInputImages(input: unknown): number {
  let count = 0;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      if (Object.hasOwn(value, 'type') && (value as { type: unknown }).type === 'input_image')
        count += 1;
      if (Object.hasOwn(value, 'content')) visit((value as { content: unknown }).content);
    }
  };
  visit(input);
  return count;
}

/** A failure after bytes went to the client: not retried or failed over (it would repeat output). */
class RelayError extends Error {}

/**
 * A Responses call relayed to one account: the body goes up with the account's model names, the
 * reply comes back byte for byte (a JSON body or an event stream) and is only read on the side,
 * to bill it and let the gallery keep its images.
 */
export async function runResponses(
  deps: ResponsesServiceDeps,
  plan: ResponsesPlan,
  reply: ResponsesRunReply,
): Promise<void> {
  const { request, caller } = plan;
  const usage = caller.usage;
  const tool = request.imageTool;
  const imageModel = tool?.model ?? IMAGE_MODELS[0];
  const bill = (response: ResponseShape | undefined) => billResponse(usage, request, response);
  const target = {
    group: caller.key.group,
    pixels: tool ? requestedPixels(tool.size) : 0,
    weight: tool ? weightOf(tool.size) : 1,
    signal: caller.signal,
  };
  const tap = deps.gallery ? new ResponsesImageTap() : null;
  try {
    // The slot is held for the whole relay: a streamed image keeps the account busy until it ends.
    await dispatchCall(deps.dispatch, target, async (upstream) => {
      usage.dispatched(upstream.account);
      const map = (model: string) => ownValue(upstream.account.modelMap, model) ?? model;
      const body: Record<string, unknown> = { ...request.body, model: map(request.model) };
      if (tool && Array.isArray(body.tools)) {
        body.tools = body.tools.map((t: unknown, i: number) =>
          i === tool.index ? { ...(t as object), model: map(imageModel) } : t,
        );
      }
      const answer = await upstream
        .responses(body, {
          stream: request.stream,
          signal: target.signal,
          timeoutMs: upstreamTimeoutFor(tool?.size, deps.dispatch.timeouts()),
        })
        .catch((error: unknown) => {
          // A failing answer has an id too (the upstream's row of the refusal).
          if (error instanceof UpstreamError) usage.answered(error.upstreamRequestId);
          throw error;
        });
      usage.answered(answer.upstreamRequestId);
      try {
        if (answer.events) await relayEvents(reply, answer.events, bill, plan, tap);
        else {
          const doc = parseSplicedJson<ResponseShape>(answer.body ?? Buffer.alloc(0));
          bill(doc.value);
          tap?.response(doc, doc.value);
          reply.whole(answer.status, answer.body ?? Buffer.alloc(0));
        }
      } catch (error) {
        throw new RelayError(error instanceof Error ? error.message : String(error));
      }
    });
  } catch (error) {
    const callerError = toCallerError(error, deps.now());
    if (callerError && !reply.committed) throw callerError;
    if (!reply.committed) throw error;
    // Mid-stream: the error event (if any) was relayed; record and close.
    usage.failedUnlessNoted({
      status: 502,
      code: 'upstream_network_error',
      message: error instanceof Error ? error.message : String(error),
    });
    reply.end();
  } finally {
    if (tap && tap.images().length > 0) {
      deps.gallery?.keepResponsesImages({
        usage,
        studioSession: caller.studioSession,
        parentImageId: caller.parentImageId,
        tool,
        prompt: inputText({ input: request.body.input }),
        images: tap.images(),
        imageUsage: tap.imageUsage(),
        connected: caller.connected(),
      });
    }
  }
}

/**
 * Events pass through byte for byte (openai-node's responses.stream() checks their order); they
 * are only read, after forwarding and with the base64 cut out, to bill the image, notice
 * failures and let the gallery keep the finished images.
 */
async function relayEvents(
  reply: ResponsesRunReply,
  events: AsyncIterable<SseEvent>,
  bill: (response: ResponseShape | undefined) => void,
  plan: ResponsesPlan,
  tap: ResponsesImageTap | null,
): Promise<void> {
  const usage = plan.caller.usage;
  reply.openEvents();
  for await (const event of events) {
    reply.event(event.rawPieces ?? [event.raw]);
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
  reply.end();
}
