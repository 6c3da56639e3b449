import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { joinPieces } from '../../bytes/base64Pieces';
import type { ImageHead, ImageSink, PartialImage } from '../types';
import { readBridgeEvents, SkippedValue, type BridgeEvent } from './bridgeEventStream';
import { readBridgeImage } from './bridgeImage';

/*
 * The Responses bridge read as it arrives (issue 16): the image of `response.output_item.done`
 * streams to the sink once its header is known, the copy `response.completed` repeats is skipped
 * without being held, and usage comes from what is left. Every test cuts the stream the ways a
 * socket may: at every byte, and in pieces of many sizes.
 */

const png = await sharp({
  create: {
    width: 24,
    height: 16,
    channels: 3,
    background: '#000',
    noise: { type: 'gaussian', mean: 128, sigma: 40 },
  },
})
  .png()
  .toBuffer();
const IMAGE = png.toString('base64');
/** Big enough that its header is known long before its end (the reader looks at 4 KB first). */
const BIG = (
  await sharp({
    create: {
      width: 160,
      height: 120,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer()
).toString('base64');
const PARTIAL = Buffer.from('a partial image, blurry').toString('base64');
const NOW = 1_800_000_000_000;
const IMAGE_USAGE = {
  input_tokens: 11,
  input_tokens_details: { text_tokens: 11, image_tokens: 0 },
  output_tokens: 372,
  output_tokens_details: { text_tokens: 0, image_tokens: 372 },
  total_tokens: 383,
};
const TEXT_USAGE = { input_tokens: 900, output_tokens: 50, total_tokens: 950 };
const tool = {
  type: 'image_generation',
  size: '24x16',
  quality: 'low',
  output_format: 'png',
  background: 'opaque',
};
const item = (result: string | null) => ({
  id: 'ig_1',
  type: 'image_generation_call',
  status: 'completed',
  background: 'opaque',
  output_format: 'png',
  quality: 'low',
  size: '24x16',
  revised_prompt: 'a "noisy" field',
  result,
});
const snapshot = (status: string, output: object[], extra: object = {}) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1_700_000_321,
  status,
  instructions: 'Draw.',
  output,
  tools: [tool],
  usage: status === 'completed' ? TEXT_USAGE : null,
  ...extra,
});

/** The simulator's order of events, as the provider sends them. */
function bridgeEvents(opts: { done?: boolean; repeat?: boolean; image?: string } = {}): object[] {
  const image = opts.image ?? IMAGE;
  return [
    { type: 'response.created', response: snapshot('in_progress', []) },
    { type: 'response.output_item.added', output_index: 0, item: item(null) },
    {
      type: 'response.image_generation_call.partial_image',
      item_id: 'ig_1',
      output_index: 0,
      partial_image_b64: PARTIAL,
      partial_image_index: 0,
    },
    ...(opts.done === false
      ? []
      : [{ type: 'response.output_item.done', output_index: 0, item: item(image) }]),
    {
      type: 'response.completed',
      response: snapshot('completed', [item(opts.repeat === false ? null : image)], {
        tool_usage: { image_gen: IMAGE_USAGE },
      }),
    },
  ];
}

function sse(events: object[], eol = '\n'): Buffer {
  return Buffer.from(
    events
      .map(
        (e) => `event: ${(e as { type: string }).type}${eol}data: ${JSON.stringify(e)}${eol}${eol}`,
      )
      .join(''),
  );
}

async function* inPieces(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function* cutAt(bytes: Buffer, at: number) {
  if (at > 0) yield bytes.subarray(0, at);
  if (at < bytes.length) yield bytes.subarray(at);
}

interface Seen {
  heads: ImageHead[];
  streamed: Buffer[];
  partials: PartialImage[];
}

function reading(source: AsyncIterable<Buffer>, sink: Partial<ImageSink> | null = {}) {
  const seen: Seen = { heads: [], streamed: [], partials: [] };
  const outcome = readBridgeImage(source, {
    headers: {},
    now: () => NOW,
    onPartial: (p) => seen.partials.push(p),
    onImageStart:
      sink === null
        ? undefined
        : (head) => {
            seen.heads.push(head);
            return {
              retain: sink.retain ?? true,
              write: sink.write ?? ((piece) => void seen.streamed.push(piece)),
            };
          },
  });
  return { seen, outcome };
}

const HEAD = {
  info: { format: 'png', width: 24, height: 16, hasAlpha: false },
  created: 1_700_000_321,
};
const OUTCOME = {
  created: 1_700_000_321,
  revisedPrompt: 'a "noisy" field',
  size: '24x16',
  quality: 'low',
  background: 'opaque',
  outputFormat: 'png',
  usage: IMAGE_USAGE,
};

describe('readBridgeImage as the stream arrives', () => {
  it('streams the image and bills it from tool_usage, cut at every byte', async () => {
    const bytes = sse(bridgeEvents());
    for (let at = 0; at <= bytes.length; at++) {
      const { seen, outcome } = reading(cutAt(bytes, at));
      const result = await outcome;
      const label = `cut at ${at}`;
      expect(joinPieces(result.b64).toString('latin1'), label).toBe(IMAGE);
      expect(result, label).toMatchObject(OUTCOME);
      expect(seen.heads, label).toEqual([HEAD]);
      expect(Buffer.concat(seen.streamed).toString('latin1'), label).toBe(IMAGE);
      expect(
        seen.partials.map((p) => p.b64.toString('latin1')),
        label,
      ).toEqual([PARTIAL]);
    }
  });

  it('reads the same, streamed or not, in pieces of any size and either line ending', async () => {
    for (const eol of ['\n', '\r\n']) {
      for (const size of [1, 2, 3, 5, 7, 64, 999, 1 << 20]) {
        for (const streaming of [true, false]) {
          const label = `eol ${JSON.stringify(eol)}, pieces of ${size}, streaming ${streaming}`;
          const { seen, outcome } = reading(
            inPieces(sse(bridgeEvents(), eol), size),
            streaming ? {} : null,
          );
          const result = await outcome;
          expect(joinPieces(result.b64).toString('latin1'), label).toBe(IMAGE);
          expect(result, label).toMatchObject(OUTCOME);
          if (streaming) expect(Buffer.concat(seen.streamed).toString('latin1'), label).toBe(IMAGE);
        }
      }
    }
  });

  it('takes the image from response.completed when no output_item.done came, cut at every byte', async () => {
    const bytes = sse(bridgeEvents({ done: false }));
    for (let at = 0; at <= bytes.length; at += 3) {
      const { seen, outcome } = reading(cutAt(bytes, at));
      const result = await outcome;
      expect(joinPieces(result.b64).toString('latin1'), `cut at ${at}`).toBe(IMAGE);
      expect(result, `cut at ${at}`).toMatchObject(OUTCOME);
      expect(Buffer.concat(seen.streamed).toString('latin1'), `cut at ${at}`).toBe(IMAGE);
    }
  });

  it('offers the image before output_item.done has ended, and waits on the sink', async () => {
    const bytes = sse(bridgeEvents({ image: BIG }));
    const doneEnds = bytes.indexOf('event: response.completed');
    let sent = 0;
    async function* source() {
      for (let i = 0; i < bytes.length; i += 128) {
        sent = i + 128;
        yield bytes.subarray(i, i + 128);
      }
    }
    const order: string[] = [];
    let offeredAt = -1;
    let wholeImageBy = -1;
    let written = 0;
    const { outcome } = reading(source(), {
      retain: false,
      write: async (piece) => {
        if (offeredAt < 0) offeredAt = sent;
        written += piece.length;
        if (written === BIG.length) wholeImageBy = sent;
        order.push('write');
        await Promise.resolve();
        order.push('drained');
      },
    });
    await outcome;
    expect(offeredAt).toBeGreaterThan(0);
    expect(offeredAt).toBeLessThan(doneEnds - BIG.length / 2);
    // The whole image went on before the completed event (the repeat) had begun to arrive.
    expect(wholeImageBy).toBeLessThanOrEqual(doneEnds + 128);
    for (let i = 0; i < order.length; i += 2)
      expect(order.slice(i, i + 2)).toEqual(['write', 'drained']);
  });

  it('lets streamed pieces go when the sink does not retain them', async () => {
    const { seen, outcome } = reading(inPieces(sse(bridgeEvents({ image: BIG })), 256), {
      retain: false,
    });
    const kept = joinPieces((await outcome).b64).toString('latin1');
    expect(Buffer.concat(seen.streamed).toString('latin1')).toBe(BIG);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(BIG.length / 4);
    expect(BIG.startsWith(kept)).toBe(true);
  });

  it('keeps the whole image when the sink is declined, and still skips the repeat', async () => {
    let offered = 0;
    const result = await readBridgeImage(inPieces(sse(bridgeEvents()), 100), {
      headers: {},
      now: () => NOW,
      onImageStart: () => {
        offered++;
        return null;
      },
    });
    expect(offered).toBe(1);
    expect(joinPieces(result.b64).toString('latin1')).toBe(IMAGE);
    expect(result.usage).toEqual(IMAGE_USAGE);
  });

  it('reads an escaped image correctly, and an image on a second data line whole', async () => {
    const bytes = Buffer.from(sse(bridgeEvents()).toString('latin1').replaceAll('/', '\\/'));
    for (const size of [1, 50, 1 << 20]) {
      const { outcome } = reading(inPieces(bytes, size));
      expect(joinPieces((await outcome).b64).toString('latin1')).toBe(IMAGE);
    }
    const split = Buffer.from(
      `event: response.output_item.done\ndata: {"type":"response.output_item.done","item":\n` +
        `data: ${JSON.stringify(item(IMAGE))}}\n\n` +
        sse([bridgeEvents()[4]!]).toString('latin1'),
    );
    const { seen, outcome } = reading(inPieces(split, 64));
    const result = await outcome;
    expect(joinPieces(result.b64).toString('latin1')).toBe(IMAGE);
    expect(result.usage).toEqual(IMAGE_USAGE);
    // The split event was read whole (nothing streamed), and its repeat was skipped.
    expect(seen.heads).toEqual([]);
  });

  it('fails clearly when the stream breaks inside the image or its repeat', async () => {
    const bytes = sse(bridgeEvents());
    const inImage = bytes.subarray(0, bytes.indexOf(IMAGE) + 300);
    await expect(reading(inPieces(inImage, 100)).outcome).rejects.toMatchObject({
      failure: { kind: 'bad_response' },
    });
    const inRepeat = bytes.subarray(0, bytes.lastIndexOf(IMAGE) + 300);
    await expect(reading(inPieces(inRepeat, 100)).outcome).rejects.toMatchObject({
      failure: { kind: 'bad_response' },
    });
    // A stream that closes without the last blank line still delivers its last event.
    const result = await reading(inPieces(bytes.subarray(0, bytes.length - 2), 100)).outcome;
    expect(result.usage).toEqual(IMAGE_USAGE);
  });

  it('turns a failure after the image into an UpstreamError', async () => {
    const events = bridgeEvents().slice(0, 4);
    events.push({
      type: 'response.failed',
      response: { error: { code: 'server_error', message: 'boom' } },
    });
    const { seen, outcome } = reading(inPieces(sse(events), 77));
    await expect(outcome).rejects.toMatchObject({ failure: { kind: 'http', status: 502 } });
    expect(Buffer.concat(seen.streamed).toString('latin1')).toBe(IMAGE);
  });
});

describe('readBridgeEvents', () => {
  it('skips a value without holding it: the event is parsed with an empty string in its place', async () => {
    const bytes = sse(bridgeEvents());
    for (const size of [1, 13, 4096]) {
      const events: BridgeEvent[] = [];
      const chosen: string[] = [];
      for await (const event of readBridgeEvents(inPieces(bytes, size), (type) => {
        chosen.push(type);
        return new SkippedValue();
      }))
        events.push(event);
      expect(chosen).toEqual(['response.output_item.done', 'response.completed']);
      expect(events.map((e) => e.type)).toEqual(bridgeEvents().map((e) => (e as never)['type']));
      const completed = events[4]!;
      expect(completed.doc.strings).toEqual([]);
      expect(completed.doc.value.response?.output?.[0]?.result).toBe('');
      expect(completed.doc.value.response?.tool_usage?.image_gen).toEqual(IMAGE_USAGE);
      expect(events[3]!.doc.value.item?.revised_prompt).toBe('a "noisy" field');
    }
  });

  it('finds the end of a skipped value past escaped quotes, however it is cut', async () => {
    const value = Buffer.from('abc\\"def\\\\\\"ghi\\\\" , "next": 1}');
    const end = value.indexOf('" , "next"');
    for (let at = 0; at <= value.length; at++) {
      const skipper = new SkippedValue();
      const first = await skipper.take(value.subarray(0, at));
      const rest = first ?? (await skipper.take(value.subarray(at)));
      const expected = at > end ? value.subarray(end, at) : value.subarray(end);
      expect(rest?.toString('latin1'), `cut at ${at}`).toBe(expected.toString('latin1'));
    }
  });
});
