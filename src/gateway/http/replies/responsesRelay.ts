import { ownValue } from '../../../shared/ownProperty';
import type { Response } from 'express';
import { IMAGE_MODELS } from '../../../shared/models';
import { dispatchCall, toCallerError, type Dispatch } from '../../dispatch/dispatchCall';
import { requestedPixels, upstreamTimeoutFor, weightOf } from '../../dispatch/sizeClass';
import {
  billResponse,
  type EventShape,
  type ResponseShape,
} from '../../imageService/responsesBilling';
import { inputText } from '../../imageService/responsesBody';
import type { SseEvent } from '../../upstream/types';
import { parseSplicedJson } from '../../bytes/jsonSplice';
import { eventData } from '../../upstream/sseParser';
import type { UsageNotes } from '../../usage/notes';
import type { ResponsesRequest } from '../../validation/responsesRequest';
import type { GalleryPort } from '../../imageService/types';
import { ResponsesImageTap } from '../responsesImages';
import { apiKeyOf, callerOf, requestSignal, usageNotes } from '../requestContext';
import { openSse } from './sse';

export interface ResponsesRelayDeps {
  dispatch: Dispatch;
  now: () => number;
  /** Sees the images a call made once it is over (and keeps them). */
  gallery?: Pick<GalleryPort, 'keepResponsesImages'>;
}

/** A failure after bytes went to the client: not retried or failed over (it would repeat output). */
class RelayError extends Error {}

/**
 * A Responses call relayed to one account: the body goes up with the account's model names, the
 * reply comes back byte for byte (a JSON body or an event stream) and is only read on the side,
 * to bill it and let the gallery keep its images.
 */
export async function relayResponses(
  res: Response,
  deps: ResponsesRelayDeps,
  parsed: ResponsesRequest,
): Promise<void> {
  const usage = usageNotes(res);
  const key = apiKeyOf(res);
  const tool = parsed.imageTool;
  const imageModel = tool?.model ?? IMAGE_MODELS[0];
  usage.requested({
    model: parsed.model,
    stream: parsed.stream,
    size: tool?.size ?? null,
    quality: tool?.quality ?? null,
    outputFormat: tool?.outputFormat ?? null,
  });
  const bill = (response: ResponseShape | undefined) => billResponse(usage, parsed, response);

  const target = {
    group: key.group,
    pixels: tool ? requestedPixels(tool.size) : 0,
    weight: tool ? weightOf(tool.size) : 1,
    signal: requestSignal(res),
  };
  const tap = deps.gallery ? new ResponsesImageTap() : null;
  try {
    // The slot is held for the whole relay: a streamed image keeps the account busy until it ends.
    await dispatchCall(deps.dispatch, target, async (upstream) => {
      usage.dispatched(upstream.account);
      const map = (model: string) => ownValue(upstream.account.modelMap, model) ?? model;
      const body: Record<string, unknown> = { ...parsed.body, model: map(parsed.model) };
      if (tool && Array.isArray(body.tools)) {
        body.tools = body.tools.map((t: unknown, i: number) =>
          i === tool.index ? { ...(t as object), model: map(imageModel) } : t,
        );
      }
      const reply = await upstream.responses(body, {
        stream: parsed.stream,
        signal: target.signal,
        timeoutMs: upstreamTimeoutFor(tool?.size ?? 'auto', deps.dispatch.timeouts()),
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
      deps.gallery?.keepResponsesImages({
        usage,
        ...callerOf(res),
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
