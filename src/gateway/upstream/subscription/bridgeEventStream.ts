import { UpstreamError } from '../../core/upstreamError';
import { b64ValueStart, parsePreamble } from '../imageValue';
import { parseSplicedJson, spliceMarkerText, type SplicedJson } from '../../bytes/jsonSplice';
import { eventData, type SseEvent } from '../../bytes/sse';
import {
  readStreamedEvents,
  type EventWithTakenValue,
  type ValueTaker,
} from '../../bytes/streamedEvents';

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
const RESULT_KEY = Buffer.from('"result"', 'latin1');
/**
 * How far into an event's `data:` its `result` must begin to be read as it arrives: a
 * `response.completed` carries the whole response object (instructions, tools) before `output`.
 */
const MAX_PROBE = 256 * 1024;

/**
 * Splits a Responses bridge stream into parsed events as it arrives (bytes/streamedEvents.ts).
 * Most events are small and are read whole. An event whose data holds a `result` string (the
 * image of `response.output_item.done`, and again of `response.completed`) is offered to `choose`
 * as soon as the value begins: the returned ValueTaker gets the value piece by piece (to stream
 * it on, or to skip it without holding it), and only the small rest of the event is parsed. A 4K
 * image is 35 MB of base64 in each of those two events; waiting for either whole would hold it
 * all and add its transfer time again.
 *
 * `choose` runs only after the consumer has handled every earlier event, so the choice may
 * depend on them (the image came already: skip the repeat).
 */
export async function* readBridgeEvents(
  body: AsyncIterable<Buffer | Uint8Array>,
  choose: ValueChoice,
): AsyncGenerator<BridgeEvent> {
  const events = readStreamedEvents(body, {
    valueStart: (data) => b64ValueStart(data, RESULT_KEY),
    maxProbe: MAX_PROBE,
    choose: ({ name, preamble }) =>
      choose(parsePreamble<BridgeEventShape>(preamble)?.type ?? name ?? '', preamble),
    endedInsideValue: () =>
      new UpstreamError({
        kind: 'bad_response',
        message: 'the upstream stream ended inside an image',
      }),
  });
  for await (const event of events) {
    if (event.taken) {
      yield takenEvent(event.taken);
      continue;
    }
    const read = readBridgeEvent(event.whole);
    if (read) yield read;
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

/**
 * The event whose value was taken, parsed from what is left: its JSON before the value, a
 * marker for the value kept (nothing for one skipped), and the rest of its data.
 */
function takenEvent(taken: EventWithTakenValue): BridgeEvent {
  const kept = taken.value.text();
  let value: BridgeEventShape;
  try {
    value = JSON.parse(
      `${taken.preamble.toString('utf8')}${kept ? spliceMarkerText(0) : ''}${taken.rest}`,
    ) as BridgeEventShape;
  } catch {
    throw unreadableEvent();
  }
  return { doc: { value, strings: kept ? [kept] : [] }, type: value.type ?? taken.name ?? '' };
}

function unreadableEvent(): UpstreamError {
  return new UpstreamError({
    kind: 'bad_response',
    message: 'the upstream sent an unreadable event',
  });
}
