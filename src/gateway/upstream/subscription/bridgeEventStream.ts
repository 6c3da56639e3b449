import { joinPieces, piecesAfter, piecesPrefix, type Base64Pieces } from '../../bytes/base64Pieces';
import { UpstreamError } from '../../core/upstreamError';
import { b64ValueStart, parsePreamble } from '../imageValue';
import { parseSplicedJson, spliceMarkerText, type SplicedJson } from '../../bytes/jsonSplice';
import { decodeEvent, eventData, findEventEnd } from '../sseParser';
import type { SseEvent } from '../types';

type Json = Record<string, unknown>;

export interface ItemShape {
  type?: string;
  id?: string;
  result?: unknown;
  revised_prompt?: unknown;
  size?: unknown;
  quality?: unknown;
  background?: unknown;
  output_format?: unknown;
  content?: Array<{ type?: string; text?: unknown; refusal?: unknown }>;
}

export interface ResponseShape {
  created_at?: number;
  tools?: unknown[];
  tool_usage?: { image_gen?: unknown };
  output?: ItemShape[];
  error?: Json | null;
  incomplete_details?: { reason?: string } | null;
}

export interface BridgeEventShape {
  type?: string;
  response?: ResponseShape;
  item?: ItemShape;
  partial_image_b64?: unknown;
  partial_image_index?: number;
  delta?: unknown;
  error?: Json;
  code?: unknown;
  message?: unknown;
}

/** One bridge event, parsed with its long base64 values cut out (see jsonSplice.ts). */
export interface BridgeEvent {
  doc: SplicedJson<BridgeEventShape>;
  type: string;
}

/**
 * What becomes of a long `result` value (an image's base64) while its event is still arriving:
 * `take` receives the value's bytes from just inside its opening quote and resolves to what
 * follows its closing quote once that has come (null while the value goes on), like
 * ImageValueReader; `text` is the value kept, or null when it was skipped (the parsed event then
 * holds an empty string in its place).
 */
export interface ValueTaker {
  take(piece: Buffer): Promise<Buffer | null>;
  text(): Base64Pieces | null;
}

/**
 * Decides, from the event's type and its JSON up to the value's opening quote, how a long
 * `result` value is read: taken by the returned ValueTaker, or (null) the event is read whole.
 */
export type ValueChoice = (type: string, preamble: Buffer) => ValueTaker | null;

/** A value nobody needs (the image repeated in `response.completed`): its bytes are dropped. */
export class SkippedValue implements ValueTaker {
  /** Backslashes at the end of the last piece: an odd run escapes a quote that starts the next. */
  private slashes = 0;

  take(piece: Buffer): Promise<Buffer | null> {
    let from = 0;
    for (;;) {
      const quote = piece.indexOf(QUOTE, from);
      if (quote < 0) {
        this.slashes = trailingSlashes(piece, piece.length, this.slashes);
        return Promise.resolve(null);
      }
      if (trailingSlashes(piece, quote, this.slashes) % 2 === 0)
        return Promise.resolve(piece.subarray(quote));
      from = quote + 1;
    }
  }

  text(): null {
    return null;
  }
}

/** The run of backslashes just before `end` (continuing `carried` when it reaches the start). */
function trailingSlashes(piece: Buffer, end: number, carried: number): number {
  let count = 0;
  while (count < end && piece[end - 1 - count] === BACKSLASH) count++;
  return count === end ? count + carried : count;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LF = 0x0a;
const RESULT_KEY = Buffer.from('"result"', 'latin1');
/**
 * How far into an event's `data:` its `result` must begin to be read as it arrives: a
 * `response.completed` carries the whole response object (instructions, tools) before `output`.
 */
const MAX_PROBE = 256 * 1024;

/** An event whose `result` value is being read as it arrives. */
interface OpenEvent {
  name: string | null;
  /** The event's JSON up to and including the quote that opens the value. */
  preamble: Buffer;
  value: ValueTaker;
  phase: 'value' | 'tail';
  /** From the quote that closes the value to the end of the event. */
  tail: Buffer[];
  tailLength: number;
}

/**
 * Splits a Responses bridge stream into parsed events as it arrives. Most events are small and
 * are read whole. An event whose data holds a `result` string (the image of
 * `response.output_item.done`, and again of `response.completed`) is offered to `choose` as soon
 * as the value begins: the returned ValueTaker gets the value piece by piece (to stream it on,
 * or to skip it without holding it), and only the small rest of the event is parsed. A 4K image
 * is 35 MB of base64 in each of those two events; waiting for either whole would hold it all and
 * add its transfer time again.
 *
 * The generator runs `choose` only after the consumer has handled every earlier event, so the
 * choice may depend on them (the image came already: skip the repeat).
 */
export async function* readBridgeEvents(
  body: AsyncIterable<Buffer | Uint8Array>,
  choose: ValueChoice,
): AsyncGenerator<BridgeEvent> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let probing = true;
  let open: OpenEvent | null = null;

  for await (const chunk of body) {
    const queue = [Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)];
    while (queue.length > 0) {
      let piece = queue.shift()!;
      if (open) {
        if (open.phase === 'value') {
          const rest = await open.value.take(piece);
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
        if (end < piece.length) queue.unshift(piece.subarray(end));
        const event = streamedEvent(open);
        open = null;
        probing = true;
        yield event;
        continue;
      }
      if (probing) {
        // Probed before the event's end is looked for, so that an event that arrived whole in
        // one read is treated as one that did not.
        const event = [...pending, piece];
        const found = probeResult(event, pendingLength + piece.length);
        const value =
          found === 'later' || found === 'never' ? null : choose(found.type, found.preamble);
        if (found !== 'later') probing = false;
        if (value && found !== 'later' && found !== 'never') {
          open = {
            name: found.name,
            preamble: found.preamble,
            value,
            phase: 'value',
            tail: [],
            tailLength: 0,
          };
          queue.unshift(...piecesAfter(event, found.valueFrom));
          pending = [];
          pendingLength = 0;
          continue;
        }
      }
      const end = findEventEnd(pending, pendingLength, piece);
      if (end >= 0) {
        const raw = [...pending, piece.subarray(0, end)];
        pending = [];
        pendingLength = 0;
        probing = true;
        if (end < piece.length) queue.unshift(piece.subarray(end));
        const event = wholeEvent(raw);
        if (event) yield event;
        continue;
      }
      pending.push(piece);
      pendingLength += piece.length;
    }
  }

  if (open) {
    if (open.phase === 'value') {
      throw new UpstreamError({
        kind: 'bad_response',
        message: 'the upstream stream ended inside an image',
      });
    }
    yield streamedEvent(open);
    return;
  }
  // A stream that closes without the final blank line still delivers its last event.
  if (pendingLength > 0) {
    const event = wholeEvent(pending);
    if (event) yield event;
  }
}

/** Parses one bridge event with the base64 cut out; null for empty and `[DONE]` events. */
export function readBridgeEvent(event: SseEvent): BridgeEvent | null {
  const data = eventData(event);
  if (!data) return null;
  let doc: SplicedJson<BridgeEventShape>;
  try {
    doc = parseSplicedJson<BridgeEventShape>(data);
  } catch {
    throw unreadableEvent();
  }
  return { doc, type: doc.value.type ?? event.event ?? '' };
}

function wholeEvent(raw: Buffer[]): BridgeEvent | null {
  const decoded = decodeEvent(raw);
  return decoded ? readBridgeEvent(decoded) : null;
}

/**
 * Where a `result` string begins in an event still arriving: the offset in the event's bytes just
 * inside its opening quote, the JSON before it, and the event's type. 'later' until enough has
 * arrived to tell; 'never' for an event without one on its first data line (read whole). The
 * bytes may run past the event's end: the search stops at its blank line.
 */
function probeResult(
  pending: Buffer[],
  pendingLength: number,
): { valueFrom: number; preamble: Buffer; type: string; name: string | null } | 'later' | 'never' {
  const head = piecesPrefix(pending, Math.min(pendingLength, MAX_PROBE));
  let name: string | null = null;
  let lineStart = 0;
  for (;;) {
    const lf = head.indexOf(LF, lineStart);
    const line = head.subarray(lineStart, lf < 0 ? head.length : lf);
    if (line.subarray(0, 5).toString('latin1') === 'data:') {
      const dataFrom = lineStart + 5 + (line[5] === 0x20 ? 1 : 0);
      // The value must begin on this line: a data value split over lines is read whole.
      const data = head.subarray(dataFrom, lf < 0 ? head.length : lf);
      const valueFrom = b64ValueStart(data, RESULT_KEY);
      if (valueFrom < 0) return lf < 0 && head.length < MAX_PROBE ? 'later' : 'never';
      const preamble = Buffer.from(data.subarray(0, valueFrom));
      const type = parsePreamble<BridgeEventShape>(preamble)?.type ?? name ?? '';
      return { valueFrom: dataFrom + valueFrom, preamble, type, name };
    }
    if (lf < 0) return head.length < MAX_PROBE ? 'later' : 'never';
    const text = line.toString('utf8').replace(/\r$/, '');
    // A blank line ends the event: one without data (a comment) has no value to take.
    if (text === '') return 'never';
    if (text.startsWith('event:')) name = text.slice(6).trim();
    lineStart = lf + 1;
  }
}

/**
 * The event whose value was taken, parsed from what is left: its JSON before the value, a
 * marker for the value kept (nothing for one skipped), and the rest of its data (the rest of the
 * value's line and any further `data:` lines, joined by newlines as SSE joins them).
 */
function streamedEvent(open: OpenEvent): BridgeEvent {
  const lines = joinPieces(open.tail).toString('utf8').split('\n');
  let data = lines[0]!.replace(/\r$/, '');
  for (const raw of lines.slice(1)) {
    const line = raw.replace(/\r$/, '');
    if (line.startsWith('data:')) data += `\n${line.slice(line[5] === ' ' ? 6 : 5)}`;
  }
  const kept = open.value.text();
  let value: BridgeEventShape;
  try {
    value = JSON.parse(
      `${open.preamble.toString('utf8')}${kept ? spliceMarkerText(0) : ''}${data}`,
    ) as BridgeEventShape;
  } catch {
    throw unreadableEvent();
  }
  return { doc: { value, strings: kept ? [kept] : [] }, type: value.type ?? open.name ?? '' };
}

function unreadableEvent(): UpstreamError {
  return new UpstreamError({
    kind: 'bad_response',
    message: 'the upstream sent an unreadable event',
  });
}
