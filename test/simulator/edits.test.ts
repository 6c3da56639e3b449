import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { API_KEY, decode, postJson, readSse, rectMask, simControl, testPicture } from './helpers';

let sim: Simulator;
let url: string;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
  url = `${sim.url}/v1/images/edits`;
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.calls.length = 0;
});

interface EditBody {
  data: { b64_json: string }[];
  size: string;
  usage: { input_tokens_details: { image_tokens: number; text_tokens: number } };
}

function form(fields: Record<string, string>, files: [string, Buffer][]): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  // Empty MIME types on purpose: clients send them, the simulator must sniff the bytes.
  for (const [name, bytes] of files)
    body.append(name, new Blob([new Uint8Array(bytes)]), `${name}.bin`);
  return body;
}

async function postForm(body: FormData): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body });
}

const HOLE = { left: 256, top: 320, width: 400, height: 300 };
const inHole = (x: number, y: number): boolean =>
  x >= HOLE.left && x < HOLE.left + HOLE.width && y >= HOLE.top && y < HOLE.top + HOLE.height;

describe('POST /v1/images/edits', () => {
  it('changes only the transparent region of the mask; opaque pixels are bit-identical in PNG', async () => {
    const input = await testPicture(1024, 1024);
    const mask = await rectMask(1024, 1024, HOLE);
    const response = await postForm(
      form({ model: 'image-model-2', prompt: 'put a moon in the sky', size: '1024x1024' }, [
        ['image', input],
        ['mask', mask],
      ]),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as EditBody;
    const out = await decode(body.data[0]!.b64_json);
    expect(out).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    const original = await sharp(input).raw().toBuffer();
    let outsideDifferent = 0;
    let insideChanged = 0;
    for (let y = 0; y < 1024; y += 1) {
      for (let x = 0; x < 1024; x += 1) {
        const o = (y * 1024 + x) * 3;
        const same =
          out.pixels[o] === original[o] &&
          out.pixels[o + 1] === original[o + 1] &&
          out.pixels[o + 2] === original[o + 2];
        if (inHole(x, y)) insideChanged += same ? 0 : 1;
        else outsideDifferent += same ? 0 : 1;
      }
    }
    expect(outsideDifferent).toBe(0);
    expect(insideChanged).toBeGreaterThan(0.95 * HOLE.width * HOLE.height);
    expect(sim.calls.at(-1)).toMatchObject({
      kind: 'images.edit',
      hasMask: true,
      imageCount: 1,
      status: 200,
    });
  });

  it("keeps the latest edit's first image and mask as received, for GET /__sim/last-edit", async () => {
    const lastEdit = async () => {
      const response = await fetch(`${sim.url}/__sim/last-edit`, { headers: simControl(sim) });
      expect(response.status).toBe(200);
      return ((await response.json()) as { last_edit: Record<string, unknown> | null }).last_edit;
    };
    const input = await testPicture(1024, 1024);
    const mask = await rectMask(1024, 1024, HOLE);
    const before = Date.now();
    const response = await postForm(
      form({ model: 'image-model-2', prompt: 'a boat', size: '1024x1024' }, [
        ['image', input],
        ['image', await testPicture(1024, 1024)],
        ['mask', mask],
      ]),
    );
    expect(response.status).toBe(200);
    const last = (await lastEdit())!;
    expect(last.at).toBeGreaterThanOrEqual(before);
    expect(Buffer.from(last.image as string, 'base64').equals(input)).toBe(true);
    expect(Buffer.from(last.mask as string, 'base64').equals(mask)).toBe(true);
    // Without the control credential the route answers nothing.
    expect((await fetch(`${sim.url}/__sim/last-edit`)).status).toBe(401);
  });

  it('blends the whole picture without a mask and keeps the input size for size auto', async () => {
    const input = await testPicture(1152, 864, 'jpeg');
    const response = await postForm(
      form({ model: 'image-model-2', prompt: 'make it dreamy', size: 'auto' }, [
        ['image[]', input],
      ]),
    );
    const body = (await response.json()) as EditBody;
    const out = await decode(body.data[0]!.b64_json);
    expect(out).toMatchObject({ width: 1152, height: 864 });
    expect(body.size).toBe('1152x864');
    const original = await sharp(input).raw().toBuffer();
    let changed = 0;
    for (let i = 0; i < original.length; i += 3)
      if (Math.abs(out.pixels[i]! - original[i]!) > 8) changed += 1;
    expect(changed).toBeGreaterThan(original.length / 3 / 4);
  });

  it('accepts image[], image[0] style fields in order, strings for numbers, and bills input images', async () => {
    const a = await testPicture(1024, 1024);
    const b = await testPicture(1024, 512);
    const response = await postForm(
      form(
        {
          model: 'image-model-2',
          prompt: 'combine',
          n: '2',
          quality: 'low',
          output_format: 'webp',
        },
        [
          ['image[0]', a],
          ['image[1]', b],
        ],
      ),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as EditBody;
    expect(body.data).toHaveLength(2);
    expect((await decode(body.data[1]!.b64_json)).format).toBe('webp');
    // 1024x1024 -> 512x512: 1 tile; 1024x512 -> 1024x512: 2 tiles.
    expect(body.usage.input_tokens_details.image_tokens).toBe(65 + 129 + (65 + 2 * 129));
    expect(sim.calls.at(-1)).toMatchObject({ imageCount: 2, n: 2, hasMask: false });
  });

  it('accepts the JSON form with data URLs, resizing the input to an explicit size', async () => {
    const input = await testPicture(1024, 1024);
    const mask = await rectMask(1024, 1024, HOLE);
    const dataUrl = (bytes: Buffer): string => `data:image/png;base64,${bytes.toString('base64')}`;
    const response = await postJson(url, {
      model: 'image-model-2',
      prompt: 'json edit',
      size: '1536x1024',
      output_format: 'jpeg',
      images: [{ image_url: dataUrl(input) }],
      mask: { image_url: dataUrl(mask) },
    });
    expect(response.status).toBe(200);
    const out = await decode(((await response.json()) as EditBody).data[0]!.b64_json);
    expect(out).toMatchObject({ format: 'jpeg', width: 1536, height: 1024 });
  });

  it('streams image_edit.* events', async () => {
    const body = form(
      { model: 'image-model-2', prompt: 'stream edit', stream: 'true', partial_images: '2' },
      [['image', await testPicture(1024, 1024)]],
    );
    const events = await readSse(await postForm(body));
    expect(events.map((e) => e.event)).toEqual([
      'image_edit.partial_image',
      'image_edit.partial_image',
      'image_edit.completed',
    ]);
    expect(events[2]!.data.type).toBe('image_edit.completed');
  });

  it.each([
    [
      'a mask of another size',
      async () => [
        ['image', await testPicture(1024, 1024)],
        ['mask', await rectMask(512, 512, { left: 0, top: 0, width: 10, height: 10 })],
      ],
      'mask',
    ],
    [
      'a mask without alpha',
      async () => [
        ['image', await testPicture(1024, 1024)],
        ['mask', await testPicture(1024, 1024)],
      ],
      'mask',
    ],
    ['no image', async () => [], 'image'],
    [
      'a file that is not an image',
      async () => [['image', Buffer.from('hello, not an image')]],
      'image',
    ],
  ] as [string, () => Promise<[string, Buffer][]>, string][])(
    'rejects %s',
    async (_name, files, param) => {
      const response = await postForm(
        form({ model: 'image-model-2', prompt: 'bad edit' }, await files()),
      );
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
    },
  );
});
