import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { joinPieces } from '../bytes/base64Pieces';
import { readImageEvents } from './imageEventsReader';
import type { CallOptions, ImageHead, PartialImage } from './types';

const png = await sharp({
  create: {
    width: 96,
    height: 64,
    channels: 3,
    background: '#000',
    noise: { type: 'gaussian', mean: 128, sigma: 40 },
  },
})
  .png()
  .toBuffer();
const B64 = png.toString('base64');
const PARTIAL = Buffer.from('a partial image').toString('base64');
const now = () => 1_700_000_000_000;
const USAGE = { input_tokens: 9, output_tokens: 372, total_tokens: 381 };

function stream(opts: { b64?: string; eol?: string; named?: boolean; extra?: string } = {}) {
  const eol = opts.eol ?? '\n';
  const named = opts.named ?? true;
  const event = (type: string, json: string) =>
    `${named ? `event: ${type}${eol}` : ''}data: ${json}${eol}${eol}`;
  return Buffer.from(
    `: keepalive${eol}${eol}` +
      event(
        'image_generation.partial_image',
        `{"type":"image_generation.partial_image","b64_json":"${PARTIAL}","partial_image_index":0}`,
      ) +
      (opts.extra ?? '') +
      event(
        'image_generation.completed',
        `{"type":"image_generation.completed","created_at":1700000321,"b64_json":"${opts.b64 ?? B64}",` +
          `"revised_prompt":"a \\"noisy\\" field","size":"96x64","quality":"low",` +
          `"background":"opaque","output_format":"png","usage":${JSON.stringify(USAGE)}}`,
      ),
  );
}

async function* inPieces(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

function options(extra: Partial<CallOptions> = {}) {
  const partials: PartialImage[] = [];
  return {
    partials,
    opts: {
      signal: new AbortController().signal,
      timeoutMs: 1000,
      now,
      onPartial: (p: PartialImage) => partials.push(p),
      ...extra,
    },
  };
}

describe('readImageEvents', () => {
  it('reads partials and the completed image, however the stream is cut, streamed or not', async () => {
    for (const eol of ['\n', '\r\n']) {
      for (const named of [true, false]) {
        for (const size of [1, 5, 64, 999, 1 << 20]) {
          for (const streaming of [false, true]) {
            const label = `eol ${JSON.stringify(eol)}, named ${named}, pieces of ${size}, streaming ${streaming}`;
            const heads: ImageHead[] = [];
            const streamed: Buffer[] = [];
            const { partials, opts } = options(
              streaming
                ? {
                    onImageStart: (head) => {
                      heads.push(head);
                      return { write: (piece) => void streamed.push(piece), retain: true };
                    },
                  }
                : {},
            );
            const bytes = stream({ eol, named });
            const outcome = await readImageEvents(inPieces(bytes, size), opts);
            expect(joinPieces(outcome.b64).toString('latin1'), label).toBe(B64);
            expect(outcome, label).toMatchObject({
              created: 1_700_000_321,
              revisedPrompt: 'a "noisy" field',
              size: '96x64',
              quality: 'low',
              background: 'opaque',
              outputFormat: 'png',
              usage: USAGE,
            });
            expect(
              partials.map((p) => [p.index, p.b64.toString('latin1')]),
              label,
            ).toEqual([[0, PARTIAL]]);
            // An event that arrives in one piece is simply read whole: there is nothing to stream.
            if (!streaming || size >= bytes.length) continue;
            expect(heads, label).toEqual([
              {
                info: { format: 'png', width: 96, height: 64, hasAlpha: false },
                created: 1_700_000_321,
              },
            ]);
            expect(Buffer.concat(streamed).toString('latin1'), label).toBe(B64);
          }
        }
      }
    }
  });

  it('offers the completed image before its event has ended, and waits on the sink', async () => {
    const bytes = stream();
    const cut = bytes.indexOf('"revised_prompt"');
    let offeredBeforeEnd = false;
    let sent = 0;
    async function* source() {
      for (let i = 0; i < bytes.length; i += 256) {
        sent = i + 256;
        yield bytes.subarray(i, i + 256);
      }
    }
    const order: string[] = [];
    await readImageEvents(
      source(),
      options({
        onImageStart: () => {
          offeredBeforeEnd = sent < cut;
          return {
            retain: false,
            write: async () => {
              order.push('write');
              await Promise.resolve();
              order.push('drained');
            },
          };
        },
      }).opts,
    );
    expect(offeredBeforeEnd).toBe(true);
    for (let i = 0; i < order.length; i += 2)
      expect(order.slice(i, i + 2)).toEqual(['write', 'drained']);
  });

  it('lets streamed pieces go when the sink does not retain them', async () => {
    const streamed: Buffer[] = [];
    const outcome = await readImageEvents(
      inPieces(stream(), 512),
      options({ onImageStart: () => ({ write: (p) => void streamed.push(p), retain: false }) })
        .opts,
    );
    expect(Buffer.concat(streamed).toString('latin1')).toBe(B64);
    const kept = joinPieces(outcome.b64).toString('latin1');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(B64.length);
    expect(B64.startsWith(kept)).toBe(true);
  });

  it('reads an event of another shape whole, and an escaped image correctly', async () => {
    // The image on a second data line: not streamed, still read.
    const split = Buffer.from(
      `event: image_generation.completed\ndata: {"type":"image_generation.completed",\n` +
        `data: "b64_json":"${B64}","usage":${JSON.stringify(USAGE)}}\n\n`,
    );
    let offered = 0;
    const splitOutcome = await readImageEvents(
      inPieces(split, 100),
      options({
        onImageStart: () => {
          offered++;
          return null;
        },
      }).opts,
    );
    expect(offered).toBe(0);
    expect(joinPieces(splitOutcome.b64).toString('latin1')).toBe(B64);

    const escaped = await readImageEvents(
      inPieces(stream({ b64: B64.replaceAll('/', '\\/') }), 300),
      options({ onImageStart: () => ({ write: () => undefined, retain: true }) }).opts,
    );
    expect(joinPieces(escaped.b64).toString('latin1')).toBe(B64);
  });

  it('turns error events into upstream errors, a refusal into a refusal', async () => {
    const refusal = Buffer.from(
      'event: error\ndata: {"type":"error","error":{"type":"image_generation_user_error",' +
        '"code":"moderation_blocked","message":"no"}}\n\n',
    );
    await expect(readImageEvents(inPieces(refusal, 7), options().opts)).rejects.toMatchObject({
      failure: { kind: 'refused' },
    });
    const outage = Buffer.from(
      'data: {"type":"error","error":{"code":"server_error","message":"boom"}}\n\n',
    );
    await expect(readImageEvents(inPieces(outage, 7), options().opts)).rejects.toMatchObject({
      failure: { kind: 'http', status: 502, code: 'server_error', message: 'boom' },
    });
  });

  it('accepts a stream that ends without the last blank line, and fails clearly otherwise', async () => {
    const bytes = stream();
    const unterminated = bytes.subarray(0, bytes.length - 2);
    for (const onImageStart of [undefined, () => null]) {
      const outcome = await readImageEvents(
        inPieces(unterminated, 1000),
        options({ onImageStart }).opts,
      );
      expect(joinPieces(outcome.b64).toString('latin1')).toBe(B64);
    }
    const cutInImage = bytes.subarray(0, bytes.indexOf(B64) + 500);
    await expect(
      readImageEvents(
        inPieces(cutInImage, 100),
        options({ onImageStart: () => ({ write: () => undefined, retain: true }) }).opts,
      ),
    ).rejects.toMatchObject({ failure: { kind: 'bad_response' } });
    const noCompleted = bytes.subarray(0, bytes.indexOf('event: image_generation.completed'));
    await expect(readImageEvents(inPieces(noCompleted, 100), options().opts)).rejects.toMatchObject(
      { failure: { kind: 'no_image' } },
    );
    const empty = stream({ b64: '' });
    await expect(
      readImageEvents(
        inPieces(empty, 50),
        options({ onImageStart: () => ({ write: () => undefined, retain: true }) }).opts,
      ),
    ).rejects.toMatchObject({ failure: { kind: 'no_image' } });
  });
});
