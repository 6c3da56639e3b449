import { addUsage, type TokenUsage } from '../../../shared/imageParams';
import {
  completedImageEventSchema,
  imageStreamEventKind,
  partialImageEventSchema,
} from '../../../shared/imagesApi';
import { base64ToBlob } from '../base64';
import { SseParser, type SseEvent } from './sse';
import { GatewayError, toGatewayError } from './errors';
import type { ImageCallHandlers, ImageCallResult } from './imageCall';
import { describeIssues } from './request';

/**
 * Reads an image event stream (generations or edits) to its end. Partial and final images are
 * handed over as soon as each event is complete; an `error` event rejects with its error, and so
 * does an image event that does not match its schema (src/shared/imagesApi.ts).
 */
export async function readImageStream(
  body: ReadableStream<Uint8Array>,
  requestId: string | null,
  handlers: ImageCallHandlers,
): Promise<ImageCallResult> {
  const parser = new SseParser();
  const reader = body.getReader();
  let usage: TokenUsage | null = null;
  let images = 0;
  const streamError = (message: string) =>
    new GatewayError(message, 0, null, null, null, requestId);

  /** The `sequence_number` of the event being handled, when it has one. */
  let numbered: number | null = null;
  const handle = (event: SseEvent): void => {
    numbered = null;
    if (event.data === '[DONE]') return;
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch {
      throw streamError(`The image stream sent an unreadable '${event.event}' event`);
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw streamError(`The image stream sent a '${event.event}' event that is not an object`);
    }
    numbered =
      'sequence_number' in payload && Number.isSafeInteger(payload.sequence_number)
        ? (payload.sequence_number as number)
        : null;
    const named = 'type' in payload && typeof payload.type === 'string' ? payload.type : null;
    const type = event.event === 'error' ? 'error' : (named ?? event.event);
    const kind = imageStreamEventKind(type);
    if (kind === 'error') {
      throw toGatewayError(0, payload, 'The image stream reported an error', requestId);
    }
    // A type this studio does not know is for a newer reader; skipping it loses nothing.
    if (kind === null) return;
    const schema = kind === 'partial' ? partialImageEventSchema : completedImageEventSchema;
    const parsed = schema.safeParse({ ...payload, type });
    if (!parsed.success) {
      throw streamError(
        `The image stream sent a malformed '${type}' event (${describeIssues(parsed.error)})`,
      );
    }
    const data = parsed.data;
    if ('partial_image_index' in data) {
      handlers.onPartial?.({
        imageIndex: data.image_index,
        partialIndex: data.partial_image_index,
        blob: base64ToBlob(data.b64_json, data.output_format),
      });
      return;
    }
    if (data.usage) usage = usage ? addUsage(usage, data.usage) : data.usage;
    images += 1;
    handlers.onImage({
      imageIndex: data.image_index,
      blob: base64ToBlob(data.b64_json, data.output_format),
      size: data.size,
      quality: data.quality,
      background: data.background,
      outputFormat: data.output_format,
      usage: data.usage,
      revisedPrompt: data.revised_prompt,
    });
  };

  /** Handles the event, then says which of the run's events it was (when it is numbered). */
  const handleNumbered = (event: SseEvent): void => {
    handle(event);
    if (numbered !== null) handlers.onSequence?.(numbered);
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const event of parser.push(value)) handleNumbered(event);
    }
    for (const event of parser.end()) handleNumbered(event);
  } catch (error) {
    // Nothing more of this stream will be read: stop its download.
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
  return { requestId, usage, images };
}
