import { describe, expect, it } from 'vitest';
import { eventData, parseSse } from './sse';

async function* chunked(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect(text: string, size: number) {
  const out = [];
  for await (const e of parseSse(chunked(text, size)))
    out.push({ event: e.event, data: e.data.toString(), raw: e.raw.toString() });
  return out;
}

const STREAM =
  ': keepalive\n\n' +
  'event: image_generation.partial_image\ndata: {"a":1}\n\n' +
  'event: image_generation.completed\r\ndata: {"b":\r\ndata: 2}\r\n\r\n' +
  'data: {"c":3}\n\n';

describe('parseSse', () => {
  it('yields the same events whatever the chunk boundaries', async () => {
    const whole = await collect(STREAM, STREAM.length);
    expect(whole.map((e) => [e.event, e.data])).toEqual([
      ['image_generation.partial_image', '{"a":1}'],
      ['image_generation.completed', '{"b":\n2}'],
      [null, '{"c":3}'],
    ]);
    for (const size of [1, 2, 3, 5, 7, 13]) {
      expect(await collect(STREAM, size)).toEqual(whole);
    }
  });

  it('keeps the exact bytes of each event for pass-through', async () => {
    const events = await collect(STREAM, 4);
    expect(events.map((e) => e.raw).join('')).toBe(STREAM.slice(': keepalive\n\n'.length));
  });

  it('delivers a last event that lacks the closing blank line', async () => {
    expect(await collect('event: x\ndata: 1', 3)).toEqual([
      { event: 'x', data: '1', raw: 'event: x\ndata: 1' },
    ]);
  });

  it('handles a multi-megabyte data line in small chunks without losing bytes', async () => {
    const big = 'A'.repeat(3_000_000);
    const events = await collect(`event: big\ndata: {"b64_json":"${big}"}\n\n`, 65_536);
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(big.length + 15);
  });

  it('gives the data as views of the chunks, joined only on request', async () => {
    const big = 'B'.repeat(300_000);
    const source = Buffer.from(`event: big\r\ndata: {"result":"${big}"}\r\n\r\ndata: [DONE]\n\n`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < source.length; i += 4096) chunks.push(source.subarray(i, i + 4096));
    const events = [];
    for await (const e of parseSse(
      (async function* () {
        yield* chunks;
      })(),
    ))
      events.push(e);
    const [first, done] = events;
    expect(first!.dataPieces!.length).toBeGreaterThan(50);
    for (const piece of first!.dataPieces!) expect(piece.buffer).toBe(source.buffer);
    expect(Buffer.concat(first!.dataPieces!).toString()).toBe(`{"result":"${big}"}`);
    expect(eventData(first!)).toBe(first!.dataPieces);
    expect(eventData(done!)).toBeNull();
  });
});
