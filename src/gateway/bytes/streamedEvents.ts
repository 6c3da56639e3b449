import { joinPieces, piecesAfter, piecesPrefix, type Base64Pieces } from './base64Pieces';
import { decodeEvent, findEventEnd, type SseEvent } from './sse';

const LF = 0x0a;

/**
 * What becomes of a long string value (an image's base64) while its event is still arriving:
 * `take` receives the value's bytes from just inside its opening quote and resolves to what
 * follows its closing quote once that has come (null while the value goes on); `text` is the
 * value kept, or null when it was skipped.
 */
export interface ValueTaker {
  take(piece: Buffer): Promise<Buffer | null>;
  text(): Base64Pieces | null;
}

/** Where a long value begins in an event still arriving. */
export interface ValueStart {
  /** The event's `event:` name, when a line before its data gave one. */
  name: string | null;
  /** The event's JSON up to and including the quote that opens the value. */
  preamble: Buffer;
}

/** An event whose long value was handed to a ValueTaker as it arrived. */
export interface EventWithTakenValue extends ValueStart {
  value: ValueTaker;
  /**
   * The rest of the event's data after the value's closing quote: the rest of its line and any
   * further `data:` lines, joined by newlines as SSE joins them.
   */
  rest: string;
}

/** One event of the stream: read whole, or with its long value taken as it arrived. */
export type StreamedEvent =
  { whole: SseEvent; taken?: undefined } | { taken: EventWithTakenValue; whole?: undefined };

export interface StreamedEventsOptions {
  /**
   * The offset in a `data:` line's value just inside the quote that opens the long value, or -1
   * while the line has not got that far (or holds no such value).
   */
  valueStart: (data: Buffer) => number;
  /** How far into an event its long value must begin to be taken as it arrives. */
  maxProbe: number;
  /**
   * Called once an event's long value begins: a ValueTaker takes it, null reads the event whole.
   * Called only after the consumer has handled every earlier event, so the choice may depend on
   * them. Absent: every event is read whole.
   */
  choose?: (start: ValueStart) => ValueTaker | null;
  /** What is thrown when the stream ends inside a value being taken. */
  endedInsideValue: () => Error;
}

/** An event whose long value is being taken as it arrives. */
interface OpenEvent extends ValueStart {
  value: ValueTaker;
  phase: 'value' | 'tail';
  /** From the quote that closes the value to the end of the event. */
  tail: Buffer[];
  tailLength: number;
}

/**
 * Splits an upstream event stream into events as it arrives: the one way both upstream readers
 * (the Images API's events, the Responses bridge's) do it. Most events are small and read whole.
 * An event whose first data line holds a long string value is offered to `choose` as soon as the
 * value begins: the ValueTaker gets the value piece by piece (to stream it on, or to skip it
 * without holding it), and only the small rest of the event is kept. A 4K image is 35 MB of
 * base64; waiting for its event whole would hold it all and add its transfer time again.
 *
 * An event is probed before its end is looked for, so one that arrived whole in one read is
 * treated as one that did not: how the socket cut the stream never changes what is read.
 */
export async function* readStreamedEvents(
  body: AsyncIterable<Buffer | Uint8Array>,
  opts: StreamedEventsOptions,
): AsyncGenerator<StreamedEvent> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  const choose = opts.choose;
  let probing = choose !== undefined;
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
        const event = takenEvent(open);
        open = null;
        probing = choose !== undefined;
        yield { taken: event };
        continue;
      }
      if (probing && choose) {
        const event = [...pending, piece];
        const found = probeValue(event, pendingLength + piece.length, opts);
        if (found !== 'later') probing = false;
        const value = found === 'later' || found === 'never' ? null : choose(found);
        if (value && found !== 'later' && found !== 'never') {
          const { name, preamble } = found;
          open = { name, preamble, value, phase: 'value', tail: [], tailLength: 0 };
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
        probing = choose !== undefined;
        if (end < piece.length) queue.unshift(piece.subarray(end));
        const event = decodeEvent(raw);
        if (event) yield { whole: event };
        continue;
      }
      pending.push(piece);
      pendingLength += piece.length;
    }
  }

  if (open) {
    if (open.phase === 'value') throw opts.endedInsideValue();
    yield { taken: takenEvent(open) };
    return;
  }
  // A stream that closes without the final blank line still delivers its last event.
  if (pendingLength > 0) {
    const event = decodeEvent(pending);
    if (event) yield { whole: event };
  }
}

/**
 * Where the long value begins in an event still arriving: the offset in the event's bytes just
 * inside its opening quote, with the JSON before it and the event's name. 'later' until enough
 * has arrived to tell; 'never' for an event without one on its first data line (read whole). The
 * bytes may run past the event's end: the search stops at its blank line.
 */
function probeValue(
  pending: Buffer[],
  pendingLength: number,
  opts: Pick<StreamedEventsOptions, 'valueStart' | 'maxProbe'>,
): (ValueStart & { valueFrom: number }) | 'later' | 'never' {
  const head = piecesPrefix(pending, Math.min(pendingLength, opts.maxProbe));
  let name: string | null = null;
  let lineStart = 0;
  for (;;) {
    const lf = head.indexOf(LF, lineStart);
    const line = head.subarray(lineStart, lf < 0 ? head.length : lf);
    if (line.subarray(0, 5).toString('latin1') === 'data:') {
      const dataFrom = lineStart + 5 + (line[5] === 0x20 ? 1 : 0);
      // The value must begin on this line: a data value split over lines is read whole.
      const data = head.subarray(dataFrom, lf < 0 ? head.length : lf);
      const valueFrom = opts.valueStart(data);
      if (valueFrom < 0) return lf < 0 && head.length < opts.maxProbe ? 'later' : 'never';
      const preamble = Buffer.from(data.subarray(0, valueFrom));
      return { valueFrom: dataFrom + valueFrom, preamble, name };
    }
    if (lf < 0) return head.length < opts.maxProbe ? 'later' : 'never';
    const text = line.toString('utf8').replace(/\r$/, '');
    // A blank line ends the event: one without data (a comment) has no value to take.
    if (text === '') return 'never';
    if (text.startsWith('event:')) name = text.slice(6).trim();
    lineStart = lf + 1;
  }
}

function takenEvent(open: OpenEvent): EventWithTakenValue {
  const lines = joinPieces(open.tail).toString('utf8').split('\n');
  let rest = lines[0]!.replace(/\r$/, '');
  for (const raw of lines.slice(1)) {
    const line = raw.replace(/\r$/, '');
    if (line.startsWith('data:')) rest += `\n${line.slice(line[5] === ' ' ? 6 : 5)}`;
  }
  return { name: open.name, preamble: open.preamble, value: open.value, rest };
}
