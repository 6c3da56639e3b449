import { normaliseUsage } from '../../shared/tokenUsage';
import { joinPieces, piecesAfter, piecesLength, piecesPrefix } from '../bytes/base64Pieces';
import { UpstreamError } from '../core/upstreamError';
import { unreadableJson } from './imagesJson';
import { b64ValueStart, ImageValueReader, parsePreamble } from './imageValue';
import { parseSplicedJson, splicedBytes, splicedPieces } from '../bytes/jsonSplice';
import { decodeEvent, eventData, findEventEnd } from './sseParser';
import type { CallOptions, ImageOutcome, SseEvent } from './types';

/** How far into an event its `data:` must have reached `b64_json` for the image to stream. */
const MAX_PROBE = 64 * 1024;
const LF = 0x0a;

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

/** A `*.completed` event whose image is being read as it arrives. */
interface OpenImageEvent {
  /** The event's JSON up to and including the quote that opens `b64_json`. */
  preamble: Buffer;
  image: ImageValueReader;
  phase: 'image' | 'tail';
  /** From the quote that closes the image to the end of the event. */
  tail: Buffer[];
  tailLength: number;
}

/**
 * Reads an Images API event stream (`stream: true`) as it arrives. Partial images are handed on
 * as each of their events ends. The `*.completed` event's image is offered to `onImageStart` as
 * soon as its header is known and then streamed piece by piece, like a reply that is not streamed
 * (imagesJsonReader.ts): a 4K completed event is 35 MB, and waiting for all of it before
 * forwarding any would add its whole transfer time again. Only the small rest of each event is
 * parsed; an event that does not have the usual shape is read whole, with the same result.
 */
export async function readImageEvents(
  body: AsyncIterable<Buffer | Uint8Array>,
  opts: CallOptions & { now: () => number },
): Promise<ImageOutcome> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let probing = opts.onImageStart !== undefined;
  let open: OpenImageEvent | null = null;

  for await (const chunk of body) {
    const queue = [Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)];
    while (queue.length > 0) {
      let piece = queue.shift()!;
      if (open) {
        if (open.phase === 'image') {
          const rest = await open.image.take(piece);
          if (rest === null) continue;
          open.phase = 'tail';
          piece = rest;
        }
        const end = findEventEnd(open.tail, open.tailLength, piece);
        if (end < 0) {
          open.tail.push(piece);
          open.tailLength += piece.length;
          continue;
        }
        open.tail.push(piece.subarray(0, end));
        return completedOutcome(open, opts.now);
      }
      const end = findEventEnd(pending, pendingLength, piece);
      if (end >= 0) {
        const raw = [...pending, piece.subarray(0, end)];
        pending = [];
        pendingLength = 0;
        probing = opts.onImageStart !== undefined;
        if (end < piece.length) queue.unshift(piece.subarray(end));
        const event = decodeEvent(raw);
        const outcome = event ? wholeEvent(event, opts, opts.now) : null;
        if (outcome) return outcome;
        continue;
      }
      pending.push(piece);
      pendingLength += piece.length;
      if (!probing) continue;
      const found = probeCompleted(pending, pendingLength);
      if (found === 'later') continue;
      probing = false;
      if (found === 'never') continue;
      open = {
        preamble: found.preamble,
        image: new ImageValueReader((info) => {
          const created = parsePreamble<StreamEventShape>(found.preamble)?.created_at;
          return opts.onImageStart!({
            info,
            created: typeof created === 'number' ? created : null,
          });
        }),
        phase: 'image',
        tail: [],
        tailLength: 0,
      };
      queue.unshift(...piecesAfter(pending, found.valueFrom));
      pending = [];
      pendingLength = 0;
    }
  }

  if (open?.phase === 'tail') return completedOutcome(open, opts.now);
  if (open) {
    throw new UpstreamError({
      kind: 'bad_response',
      message: 'the upstream stream ended inside the completed image',
    });
  }
  // A stream that closes without the final blank line still delivers its last event.
  const last = pendingLength > 0 ? decodeEvent(pending) : null;
  const outcome = last ? wholeEvent(last, opts, opts.now) : null;
  if (outcome) return outcome;
  throw new UpstreamError({
    kind: 'no_image',
    message: 'the upstream stream ended without a completed image',
  });
}

/**
 * Where the image of a `*.completed` event still arriving begins: the offset in the event's bytes
 * just inside the quote that opens `b64_json`, and the JSON before it. 'later' until enough has
 * arrived to tell; 'never' for any other event, or one of another shape (read whole instead).
 */
function probeCompleted(
  pending: Buffer[],
  pendingLength: number,
): { valueFrom: number; preamble: Buffer } | 'later' | 'never' {
  const head = piecesPrefix(pending, Math.min(pendingLength, MAX_PROBE));
  let name: string | null = null;
  let lineStart = 0;
  for (;;) {
    const lf = head.indexOf(LF, lineStart);
    const line = head.subarray(lineStart, lf < 0 ? head.length : lf);
    if (line.subarray(0, 5).toString('latin1') === 'data:') {
      const dataFrom = lineStart + 5 + (line[5] === 0x20 ? 1 : 0);
      // The image must begin on this line: a data value split over lines is read whole.
      const data = head.subarray(dataFrom, lf < 0 ? head.length : lf);
      const valueFrom = b64ValueStart(data);
      if (valueFrom < 0) return lf < 0 && head.length < MAX_PROBE ? 'later' : 'never';
      const preamble = Buffer.from(data.subarray(0, valueFrom));
      const type = name ?? parsePreamble<StreamEventShape>(preamble)?.type ?? '';
      return type.endsWith('.completed') ? { valueFrom: dataFrom + valueFrom, preamble } : 'never';
    }
    if (lf < 0) return head.length < MAX_PROBE ? 'later' : 'never';
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.startsWith('event:')) name = text.slice(6).trim();
    lineStart = lf + 1;
  }
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
function completedOutcome(open: OpenImageEvent, now: () => number): ImageOutcome {
  const tail = joinPieces(open.tail);
  const lineEnd = tail.indexOf(LF);
  const line = tail.subarray(0, lineEnd < 0 ? tail.length : lineEnd);
  let value: StreamEventShape;
  try {
    value = JSON.parse(
      Buffer.concat([open.preamble, line]).toString('utf8').replace(/\r$/, ''),
    ) as StreamEventShape;
  } catch {
    throw unreadableJson();
  }
  const b64 = open.image.text();
  if (piecesLength(b64) === 0) throw noImage();
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
