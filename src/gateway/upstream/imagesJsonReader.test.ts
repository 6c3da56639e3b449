import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { joinPieces } from '../bytes/base64Pieces';
import { UpstreamError } from '../core/upstreamError';
import { readImagesJson } from './imagesJsonReader';
import type { ImageHead } from './types';

const png = await sharp({
  create: { width: 64, height: 48, channels: 3, background: '#3a6' },
})
  .png()
  .toBuffer();
const B64 = png.toString('base64');
const now = () => 1_700_000_000_000;

function body(b64 = B64, created = 1_700_000_123) {
  return Buffer.from(
    `{"created": ${created}, "data": [ {"b64_json" : "${b64}", "revised_prompt":"a \\"quoted\\" fern"} ],` +
      `"background":"opaque","output_format":"png","quality":"low","size":"64x48",` +
      `"usage":{"input_tokens":10,"output_tokens":272,"total_tokens":282}}`,
  );
}

/** Delivers `bytes` in pieces of `size` bytes, like a socket. */
async function* inPieces(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('readImagesJson', () => {
  it('reads every field and the exact image, however the body is cut', async () => {
    for (const size of [1, 3, 17, 100, 4096, 1 << 20]) {
      const outcome = await readImagesJson(inPieces(body(), size), { now });
      expect(joinPieces(outcome.b64).toString('latin1'), `pieces of ${size}`).toBe(B64);
      expect(outcome).toMatchObject({
        created: 1_700_000_123,
        revisedPrompt: 'a "quoted" fern',
        size: '64x48',
        quality: 'low',
        background: 'opaque',
        outputFormat: 'png',
        usage: { input_tokens: 10, output_tokens: 272, total_tokens: 282 },
      });
    }
  });

  it('offers the image once its header is known, then streams every piece into the sink', async () => {
    for (const size of [7, 1000]) {
      const heads: ImageHead[] = [];
      const streamed: Buffer[] = [];
      const outcome = await readImagesJson(inPieces(body(), size), {
        now,
        onImageStart: (head) => {
          heads.push(head);
          return { write: (piece) => void streamed.push(piece), retain: true };
        },
      });
      expect(heads).toEqual([
        {
          info: { format: 'png', width: 64, height: 48, hasAlpha: false },
          created: 1_700_000_123,
        },
      ]);
      expect(Buffer.concat(streamed).toString('latin1')).toBe(B64);
      expect(joinPieces(outcome.b64).toString('latin1')).toBe(B64);
    }
  });

  it('lets streamed pieces go when the sink does not retain them', async () => {
    const noisy = await sharp({
      create: {
        width: 256,
        height: 256,
        channels: 3,
        background: '#000',
        noise: { type: 'gaussian', mean: 128, sigma: 50 },
      },
    })
      .png()
      .toBuffer();
    const B64 = noisy.toString('base64');
    const streamed: Buffer[] = [];
    const outcome = await readImagesJson(inPieces(body(B64), 1000), {
      now,
      onImageStart: () => ({ write: (piece) => void streamed.push(piece), retain: false }),
    });
    expect(Buffer.concat(streamed).toString('latin1')).toBe(B64);
    const kept = joinPieces(outcome.b64).toString('latin1');
    // Only what was read before the header decided: enough to know the image, not all of it.
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(B64.length);
    expect(B64.startsWith(kept)).toBe(true);
  });

  it('waits on a sink that pushes back before reading on', async () => {
    const order: string[] = [];
    await readImagesJson(inPieces(body(), 50), {
      now,
      onImageStart: () => ({
        retain: true,
        write: async () => {
          order.push('write');
          await new Promise((resolve) => setTimeout(resolve, 1));
          order.push('drained');
        },
      }),
    });
    expect(order.length).toBeGreaterThan(4);
    for (let i = 0; i < order.length; i += 2)
      expect(order.slice(i, i + 2)).toEqual(['write', 'drained']);
  });

  it('buffers when the sink is declined, and never offers what it cannot read', async () => {
    let offered = 0;
    const declined = await readImagesJson(inPieces(body(), 64), {
      now,
      onImageStart: () => {
        offered++;
        return null;
      },
    });
    expect(offered).toBe(1);
    expect(joinPieces(declined.b64).toString('latin1')).toBe(B64);

    const notAnImage = Buffer.from('x'.repeat(9000)).toString('base64');
    const garbage = await readImagesJson(inPieces(body(notAnImage), 512), {
      now,
      onImageStart: () => {
        throw new Error('must not be offered');
      },
    });
    expect(joinPieces(garbage.b64).toString('latin1')).toBe(notAnImage);
  });

  it('decodes an escaped value (`\\/`) correctly instead of streaming it', async () => {
    const escaped = B64.replaceAll('/', '\\/');
    expect(escaped).not.toBe(B64);
    let offered = false;
    const outcome = await readImagesJson(inPieces(body(escaped), 33), {
      now,
      onImageStart: () => {
        offered = true;
        return null;
      },
    });
    expect(offered).toBe(false);
    expect(joinPieces(outcome.b64).toString('latin1')).toBe(B64);
  });

  it('takes created from the clock when the upstream put it after the image', async () => {
    const late = Buffer.from(`{"data":[{"b64_json":"${B64}"}],"created":5}`);
    let head: ImageHead | undefined;
    const outcome = await readImagesJson(inPieces(late, 100), {
      now,
      onImageStart: (h) => {
        head = h;
        return null;
      },
    });
    expect(head?.created).toBeNull();
    expect(outcome.created).toBe(5);
  });

  it('fails clearly on a body cut inside the image, on no image and on broken JSON', async () => {
    const cut = body().subarray(0, 300);
    await expect(readImagesJson(inPieces(cut, 64), { now })).rejects.toMatchObject({
      failure: { kind: 'bad_response', message: expect.stringMatching(/inside the image/) },
    });
    const empty = Buffer.from('{"created":1,"data":[{"b64_json":""}]}');
    await expect(readImagesJson(inPieces(empty, 5), { now })).rejects.toMatchObject({
      failure: { kind: 'no_image' },
    });
    const none = Buffer.from('{"created":1,"data":[]}');
    await expect(readImagesJson(inPieces(none, 5), { now })).rejects.toMatchObject({
      failure: { kind: 'no_image' },
    });
    const broken = Buffer.from(`{"data":[{"b64_json":"${B64}"}],"usage":{`);
    const error: unknown = await readImagesJson(inPieces(broken, 999), { now }).catch((e) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).failure.kind).toBe('bad_response');
  });
});
