import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from './sse';

const encoder = new TextEncoder();

/** Feeds `text` to a fresh parser cut at every given byte offset. */
function parseInChunks(text: string, cuts: number[]): SseEvent[] {
  const bytes = encoder.encode(text);
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...parser.end());
  return events;
}

const STREAM =
  ': keepalive\n\n' +
  'event: image_generation.partial_image\n' +
  'data: {"type":"image_generation.partial_image","b64_json":"QUJD","partial_image_index":0}\n\n' +
  'event: image_generation.completed\r\n' +
  'data: {"type":"image_generation.completed","b64_json":"REVG"}\r\n\r\n';

const EXPECTED: SseEvent[] = [
  {
    event: 'image_generation.partial_image',
    data: '{"type":"image_generation.partial_image","b64_json":"QUJD","partial_image_index":0}',
  },
  {
    event: 'image_generation.completed',
    data: '{"type":"image_generation.completed","b64_json":"REVG"}',
  },
];

describe('SseParser', () => {
  it('parses events, ignoring comments, with LF and CRLF line ends', () => {
    expect(parseInChunks(STREAM, [])).toEqual(EXPECTED);
  });

  it('gives the same events whatever the chunk boundaries', () => {
    const length = encoder.encode(STREAM).length;
    for (let cut = 1; cut < length; cut++) {
      expect(parseInChunks(STREAM, [cut])).toEqual(EXPECTED);
    }
    // Every byte on its own, including between '\r' and '\n'.
    const everyByte = Array.from({ length: length - 1 }, (_, i) => i + 1);
    expect(parseInChunks(STREAM, everyByte)).toEqual(EXPECTED);
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const text = 'data: {"prompt":"café ☕"}\n\n';
    const bytes = encoder.encode(text);
    const split = bytes.indexOf(0xe2) + 1; // inside the 3-byte '☕'
    expect(parseInChunks(text, [split])).toEqual([
      { event: 'message', data: '{"prompt":"café ☕"}' },
    ]);
  });

  it('joins several data lines with a newline and accepts a field without a space', () => {
    expect(parseInChunks('event:error\ndata:{"a":\ndata: 1}\n\n', [])).toEqual([
      { event: 'error', data: '{"a":\n1}' },
    ]);
  });

  it('reassembles a large payload fed in many small chunks', () => {
    const b64 = 'A'.repeat(2_000_000);
    const text = `event: image_edit.completed\ndata: {"b64_json":"${b64}"}\n\n`;
    const cuts = Array.from({ length: 500 }, (_, i) => (i + 1) * 4001);
    const [event] = parseInChunks(text, cuts);
    expect(event?.event).toBe('image_edit.completed');
    expect((JSON.parse(event!.data) as { b64_json: string }).b64_json.length).toBe(2_000_000);
  });

  it('delivers a final event whose blank line never came, and drops an empty one', () => {
    expect(parseInChunks('event: x\ndata: 1', [])).toEqual([{ event: 'x', data: '1' }]);
    expect(parseInChunks('event: x\n\n', [])).toEqual([]);
  });
});
