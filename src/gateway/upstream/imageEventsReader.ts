import { normaliseUsage } from '../../shared/tokenUsage';
import { piecesLength } from '../bytes/base64Pieces';
import { UpstreamError } from '../core/upstreamError';
import { unreadableJson } from './imagesJson';
import { b64ValueStart, ImageValueReader, parsePreamble } from './imageValue';
import { parseSplicedJson, splicedBytes, splicedPieces } from '../bytes/jsonSplice';
import { eventData, type SseEvent } from '../bytes/sse';
import {
  readStreamedEvents,
  type EventWithTakenValue,
  type ValueStart,
} from '../bytes/streamedEvents';
import type { CallOptions, ImageOutcome } from './types';

/** How far into an event its `data:` must have reached `b64_json` for the image to stream. */
const MAX_PROBE = 64 * 1024;

interface StreamEventShape {
  type?: string;
  b64_json?: unknown;
  partial_image_index?: number;
  revised_prompt?: unknown;
  created_at?: number;
  size?: unknown;
  quality?: unknown;
  background?: unknown;
  output_format?: unknown;
  usage?: unknown;
  error?: { message?: string; code?: string; type?: string };
}

/**
 * Reads an Images API event stream (`stream: true`) as it arrives (bytes/streamedEvents.ts).
 * Partial images are handed on as each of their events ends. The `*.completed` event's image is
 * offered to `onImageStart` as soon as its header is known and then streamed piece by piece, like
 * a reply that is not streamed (imagesJsonReader.ts): a 4K completed event is 35 MB, and waiting
 * for all of it before forwarding any would add its whole transfer time again. Only the small
 * rest of each event is parsed; an event that does not have the usual shape is read whole, with
 * the same result.
 */
export async function readImageEvents(
  body: AsyncIterable<Buffer | Uint8Array>,
  opts: CallOptions & { now: () => number },
): Promise<ImageOutcome> {
  const onImageStart = opts.onImageStart;
  const events = readStreamedEvents(body, {
    valueStart: (data) => b64ValueStart(data),
    maxProbe: MAX_PROBE,
    choose: onImageStart && ((start) => completedImage(start, onImageStart)),
    endedInsideValue: () =>
      new UpstreamError({
        kind: 'bad_response',
        message: 'the upstream stream ended inside the completed image',
      }),
  });
  for await (const event of events) {
    const outcome = event.taken
      ? completedOutcome(event.taken, opts.now)
      : wholeEvent(event.whole, opts, opts.now);
    if (outcome) return outcome;
  }
  throw new UpstreamError({
    kind: 'no_image',
    message: 'the upstream stream ended without a completed image',
  });
}

/**
 * The reader of a `*.completed` event's image, offered to `onImageStart` once its header is
 * known; null for any other event (read whole).
 */
function completedImage(
  { name, preamble }: ValueStart,
  onImageStart: NonNullable<CallOptions['onImageStart']>,
): ImageValueReader | null {
  const head = parsePreamble<StreamEventShape>(preamble);
  const type = name ?? head?.type ?? '';
  if (!type.endsWith('.completed')) return null;
  const created = head?.created_at;
  return new ImageValueReader((info) =>
    onImageStart({ info, created: typeof created === 'number' ? created : null }),
  );
}

/** An event read whole: a partial image is handed on, a completed one ends the stream. */
function wholeEvent(event: SseEvent, opts: CallOptions, now: () => number): ImageOutcome | null {
  const data = eventData(event);
  if (!data) return null;
  let doc;
  try {
    doc = parseSplicedJson<StreamEventShape>(data);
  } catch {
    throw unreadableJson();
  }
  const type = doc.value.type ?? event.event ?? '';
  if (doc.value.error || type === 'error') throw streamError(doc.value.error ?? {});
  if (type.endsWith('.partial_image')) {
    const b64 = splicedBytes(doc, doc.value.b64_json);
    if (b64) opts.onPartial?.({ b64, index: doc.value.partial_image_index ?? 0 });
    return null;
  }
  if (!type.endsWith('.completed')) return null;
  const b64 = splicedPieces(doc, doc.value.b64_json);
  if (!b64 || piecesLength(b64) === 0) throw noImage();
  return outcomeOf(doc.value, b64, now);
}

/** The completed event streamed through: what is left of its JSON is small, and parsed now. */
function completedOutcome(taken: EventWithTakenValue, now: () => number): ImageOutcome {
  let value: StreamEventShape;
  try {
    value = JSON.parse(`${taken.preamble.toString('utf8')}${taken.rest}`) as StreamEventShape;
  } catch {
    throw unreadableJson();
  }
  const b64 = taken.value.text();
  if (!b64 || piecesLength(b64) === 0) throw noImage();
  return outcomeOf(value, b64, now);
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function outcomeOf(
  value: StreamEventShape,
  b64: ImageOutcome['b64'],
  now: () => number,
): ImageOutcome {
  return {
    b64,
    created: value.created_at ?? Math.floor(now() / 1000),
    revisedPrompt: str(value.revised_prompt) ?? null,
    size: str(value.size),
    quality: str(value.quality),
    background: str(value.background),
    outputFormat: str(value.output_format),
    usage: normaliseUsage(value.usage, { imageModel: true }),
  };
}

function noImage(): UpstreamError {
  return new UpstreamError({ kind: 'no_image', message: 'the completed event carried no image' });
}

function streamError(e: NonNullable<StreamEventShape['error']>): UpstreamError {
  const refused = e.code === 'moderation_blocked' || e.type === 'image_generation_user_error';
  return new UpstreamError(
    refused
      ? { kind: 'refused', message: e.message ?? 'the upstream refused the prompt' }
      : {
          kind: 'http',
          status: 502,
          code: e.code ?? null,
          message: e.message ?? 'upstream stream error',
          param: null,
          type: e.type ?? null,
        },
  );
}
