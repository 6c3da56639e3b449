import {
  joinPieces,
  piecesAfter,
  piecesLength,
  piecesPrefix,
  type Base64Pieces,
} from './base64Pieces';

const LF = 0x0a;

/** One server-sent event, in the pieces it arrived in. */
export interface SseEvent {
  /** The `event:` name, or the `type` inside `data` when the name is absent. */
  event: string | null;
  /** The exact bytes of the whole event block, including the terminating blank line. */
  raw: Buffer;
  /** The same bytes in the pieces they arrived in (to forward without joining them). */
  rawPieces?: Base64Pieces;
  /** The `data:` payload bytes (joined when split across lines). */
  data: Buffer;
  /**
   * The same payload in the pieces it arrived in, for readers that splice it (see
   * jsonSplice.ts) instead of joining 35 MB; absent on events built by hand.
   */
  dataPieces?: Base64Pieces;
}

/**
 * Splits a byte stream into SSE events without ever re-scanning or re-concatenating what came
 * before: a 33 MB `data:` line arrives in hundreds of chunks, and joining the pending bytes on
 * every chunk would be quadratic. Each chunk is searched once (plus two bytes of overlap for a
 * terminator split across chunks), and an event's bytes are joined exactly once.
 */
export async function* parseSse(
  source: AsyncIterable<Buffer | Uint8Array>,
): AsyncGenerator<SseEvent> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  for await (const piece of source) {
    let chunk = Buffer.isBuffer(piece)
      ? piece
      : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    while (chunk.length > 0) {
      const end = findEventEnd(pending, pendingLength, chunk);
      if (end < 0) {
        pending.push(chunk);
        pendingLength += chunk.length;
        break;
      }
      const raw =
        pendingLength === 0 ? [chunk.subarray(0, end)] : [...pending, chunk.subarray(0, end)];
      pending = [];
      pendingLength = 0;
      chunk = chunk.subarray(end);
      const event = decodeEvent(raw);
      if (event) yield event;
    }
  }
  if (pendingLength > 0) {
    // A stream that closes without the final blank line still delivers its last event.
    const event = decodeEvent(pending);
    if (event) yield event;
  }
}

/**
 * Returns the offset in `chunk` just past the blank line that ends the current event, or -1.
 * The blank line is `\n\n` or `\n\r\n`; up to two bytes of it may sit at the end of `pending`.
 */
export function findEventEnd(pending: Buffer[], pendingLength: number, chunk: Buffer): number {
  if (pendingLength > 0) {
    const last = pending[pending.length - 1]!;
    const b1 = last[last.length - 1];
    const b2 =
      last.length > 1
        ? last[last.length - 2]
        : pending.length > 1
          ? tailByte(pending, 2)
          : undefined;
    if (b1 === LF && chunk[0] === LF) return 1;
    if (b1 === LF && chunk[0] === 0x0d && chunk[1] === LF) return 2;
    if (b2 === LF && b1 === 0x0d && chunk[0] === LF) return 1;
  }
  let from = 0;
  for (;;) {
    const lf = chunk.indexOf(LF, from);
    if (lf < 0 || lf + 1 >= chunk.length) return -1;
    const next = chunk[lf + 1];
    if (next === LF) return lf + 2;
    if (next === 0x0d && chunk[lf + 2] === LF) return lf + 3;
    if (next === 0x0d && lf + 2 >= chunk.length) return -1;
    from = lf + 1;
  }
}

function tailByte(pending: Buffer[], fromEnd: number): number | undefined {
  let remaining = fromEnd;
  for (let i = pending.length - 1; i >= 0; i--) {
    const part = pending[i]!;
    if (part.length >= remaining) return part[part.length - remaining];
    remaining -= part.length;
  }
  return undefined;
}

/**
 * Reads the `event:` and `data:` fields of one event block, given in the pieces it arrived in;
 * comments and blank blocks yield null. Nothing is joined here: `raw` and `data` are joined on
 * first use, and readers that splice use `dataPieces`.
 */
export function decodeEvent(raw: Buffer[]): SseEvent | null {
  let name: string | null = null;
  const dataLines: Buffer[][] = [];
  for (const line of linesOf(raw)) {
    const head = lineHead(line);
    if (head.length === 0 || head[0] === 0x3a /* ':' comment */) continue;
    const colon = head.indexOf(0x3a);
    // A line without a colon is a field name alone; a long one is no field of ours.
    const field =
      colon >= 0
        ? head.toString('latin1', 0, colon)
        : lengthOf(line) <= 64
          ? head.toString('latin1')
          : '';
    if (field !== 'event' && field !== 'data') continue;
    // The value starts after the colon and one optional space.
    const skip = colon < 0 ? lengthOf(line) : colon + 1 + (head[colon + 1] === 0x20 ? 1 : 0);
    const value = piecesAfter(line, skip);
    if (field === 'event') name = joinPieces(value).toString('utf8');
    else dataLines.push(value);
  }
  if (name === null && dataLines.length === 0) return null;
  const dataPieces = dataLines.flatMap((line, i) => (i === 0 ? line : [NEWLINE, ...line]));
  let rawJoined: Buffer | null = null;
  let dataJoined: Buffer | null = null;
  return {
    event: name,
    get raw() {
      return (rawJoined ??= joinPieces(raw));
    },
    get data() {
      return (dataJoined ??= joinPieces(dataPieces));
    },
    dataPieces,
    rawPieces: raw,
  };
}

const NEWLINE = Buffer.from('\n');

/** The lines of an event block (without their LF or CR LF), each as pieces. */
function* linesOf(raw: Buffer[]): Generator<Buffer[]> {
  let line: Buffer[] = [];
  for (const piece of raw) {
    let from = 0;
    for (;;) {
      const lf = piece.indexOf(LF, from);
      if (lf < 0) {
        if (from < piece.length) line.push(piece.subarray(from));
        break;
      }
      if (lf > from) line.push(piece.subarray(from, lf));
      yield withoutTrailingCr(line);
      line = [];
      from = lf + 1;
    }
  }
  if (line.length > 0) yield withoutTrailingCr(line);
}

function withoutTrailingCr(line: Buffer[]): Buffer[] {
  const last = line[line.length - 1];
  if (!last || last[last.length - 1] !== 0x0d) return line;
  const trimmed = last.subarray(0, last.length - 1);
  return trimmed.length > 0 ? [...line.slice(0, -1), trimmed] : line.slice(0, -1);
}

/** Up to the first 64 bytes of a line: where field names and the colon are. */
function lineHead(line: Buffer[]): Buffer {
  const first = line[0];
  if (!first) return Buffer.alloc(0);
  if (first.length >= 64 || line.length === 1) return first.subarray(0, 64);
  return Buffer.concat(line).subarray(0, 64);
}

function lengthOf(line: Buffer[]): number {
  return line.reduce((sum, piece) => sum + piece.length, 0);
}

/** The event's data, in pieces, or null for the empty and `[DONE]` events (nothing is joined). */
export function eventData(event: SseEvent): Base64Pieces | null {
  const pieces = event.dataPieces ?? [event.data];
  if (piecesLength(pieces) === 0) return null;
  return piecesPrefix(pieces, 6).toString('latin1') === '[DONE]' ? null : pieces;
}
