import type { SseEvent } from './types';

const LF = 0x0a;

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
        pendingLength === 0
          ? chunk.subarray(0, end)
          : Buffer.concat([...pending, chunk.subarray(0, end)]);
      pending = [];
      pendingLength = 0;
      chunk = chunk.subarray(end);
      const event = decodeEvent(raw);
      if (event) yield event;
    }
  }
  if (pendingLength > 0) {
    // A stream that closes without the final blank line still delivers its last event.
    const event = decodeEvent(Buffer.concat(pending));
    if (event) yield event;
  }
}

/**
 * Returns the offset in `chunk` just past the blank line that ends the current event, or -1.
 * The blank line is `\n\n` or `\n\r\n`; up to two bytes of it may sit at the end of `pending`.
 */
function findEventEnd(pending: Buffer[], pendingLength: number, chunk: Buffer): number {
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

/** Reads the `event:` and `data:` fields of one event block; comments and blank blocks yield null. */
function decodeEvent(raw: Buffer): SseEvent | null {
  let name: string | null = null;
  const dataParts: Buffer[] = [];
  let pos = 0;
  while (pos < raw.length) {
    let lineEnd = raw.indexOf(LF, pos);
    if (lineEnd < 0) lineEnd = raw.length;
    let contentEnd = lineEnd;
    if (contentEnd > pos && raw[contentEnd - 1] === 0x0d) contentEnd--;
    const line = raw.subarray(pos, contentEnd);
    pos = lineEnd + 1;
    if (line.length === 0 || line[0] === 0x3a /* ':' comment */) continue;
    const colon = line.indexOf(0x3a);
    const field = colon < 0 ? line.toString('latin1') : line.toString('latin1', 0, colon);
    let value = colon < 0 ? line.subarray(line.length) : line.subarray(colon + 1);
    if (value[0] === 0x20) value = value.subarray(1);
    if (field === 'event') name = value.toString('utf8');
    else if (field === 'data') dataParts.push(value);
  }
  if (name === null && dataParts.length === 0) return null;
  const data =
    dataParts.length === 1
      ? dataParts[0]!
      : Buffer.concat(
          dataParts.flatMap((part, i) => (i === 0 ? [part] : [Buffer.from('\n'), part])),
        );
  return { event: name, raw, data };
}
