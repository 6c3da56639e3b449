import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors';
import { LIMITS } from '../../shared/imageParams';
import { parseEditMultipart, type EditRequest } from './editRequest';
import { sizeOf } from '../core/requestedSize';

// A real node:http server fed by real multipart requests (global fetch + FormData).

type Outcome = { ok: true; edit: EditRequest } | { ok: false; error: unknown };

let server: http.Server;
let url: string;
let outcomeWaiters: Array<(outcome: Outcome) => void> = [];
let requestWaiters: Array<() => void> = [];

function nextOutcome(): Promise<Outcome> {
  return new Promise((resolve) => outcomeWaiters.push(resolve));
}

function nextRequest(): Promise<void> {
  return new Promise((resolve) => requestWaiters.push(resolve));
}

function settle(outcome: Outcome): void {
  const waiters = outcomeWaiters;
  outcomeWaiters = [];
  for (const waiter of waiters) waiter(outcome);
}

function summarize(edit: EditRequest) {
  const describe = (i: EditRequest['images'][number]) => ({
    filename: i.filename,
    format: i.format,
    width: i.width,
    height: i.height,
    hasAlpha: i.hasAlpha,
    bytes: i.bytes.length,
  });
  return {
    options: edit.options,
    images: edit.images.map(describe),
    mask: edit.mask ? describe(edit.mask) : null,
  };
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const waiters = requestWaiters;
    requestWaiters = [];
    for (const waiter of waiters) waiter();
    parseEditMultipart(req).then(
      (edit) => {
        settle({ ok: true, edit });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(summarize(edit)));
      },
      (error: unknown) => {
        settle({ ok: false, error });
        const status = error instanceof ApiError ? error.status : 500;
        const body = error instanceof ApiError ? error.toBody() : { error: String(error) };
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/images/edits`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function image(
  width: number,
  height: number,
  kind: 'png' | 'pngRgb' | 'jpeg' | 'webp' = 'png',
): Promise<Buffer> {
  const channels = kind === 'pngRgb' || kind === 'jpeg' ? 3 : 4;
  const base = sharp({
    create: { width, height, channels, background: { r: 10, g: 120, b: 200, alpha: 0.5 } },
  });
  if (kind === 'jpeg') return base.jpeg().toBuffer();
  if (kind === 'webp') return base.webp({ lossless: true }).toBuffer();
  return base.png().toBuffer();
}

type Part = [name: string, value: string | Buffer, filename?: string, type?: string];

function form(parts: Part[], withDefaults = true): FormData {
  const body = new FormData();
  if (withDefaults) {
    body.append('model', 'image-model-2');
    body.append('prompt', 'make it blue');
  }
  for (const [name, value, filename, type] of parts) {
    if (typeof value === 'string') body.append(name, value);
    else
      body.append(
        name,
        new Blob([value], { type: type ?? 'image/png' }),
        filename ?? `${name}.png`,
      );
  }
  return body;
}

async function post(body: FormData | string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', body, headers });
  const json = (await response.json()) as Record<string, unknown>;
  return { status: response.status, json };
}

async function ok(body: FormData) {
  const { status, json } = await post(body);
  expect(status, JSON.stringify(json)).toBe(200);
  return json as ReturnType<typeof summarize>;
}

async function fails(body: FormData | string, headers: Record<string, string> = {}) {
  const { status, json } = await post(body, headers);
  expect(status).toBe(400);
  const error = (
    json as { error: { message: string; type: string; param: string | null; code: string } }
  ).error;
  expect(error.type).toBe('invalid_request_error');
  return error;
}

let png64: Buffer;
let png48x32: Buffer;
let png32x48: Buffer;
let png16: Buffer;

beforeAll(async () => {
  [png64, png48x32, png32x48, png16] = await Promise.all([
    image(64, 64),
    image(48, 32),
    image(32, 48),
    image(16, 16),
  ]);
});

describe('parseEditMultipart: fields and files', () => {
  it('parses one `image` file and coerces the text fields', async () => {
    const json = await ok(
      form([
        ['image', png64, 'in.png'],
        ['n', '2'],
        ['size', '1024x1024'],
        ['quality', 'high'],
        ['stream', 'true'],
        ['partial_images', '2'],
        ['output_format', 'webp'],
        ['output_compression', '60'],
      ]),
    );
    expect(json.options).toEqual({
      model: 'image-model-2',
      prompt: 'make it blue',
      n: 2,
      size: sizeOf(1024, 1024),
      quality: 'high',
      outputFormat: 'webp',
      outputCompression: 60,
      stream: true,
      partialImages: 2,
    });
    expect(json.images).toEqual([
      {
        filename: 'in.png',
        format: 'png',
        width: 64,
        height: 64,
        hasAlpha: true,
        bytes: png64.length,
      },
    ]);
    expect(json.mask).toBeNull();
  });

  it('keeps image[] files in arrival order', async () => {
    const json = await ok(
      form([
        ['image[]', png48x32, 'a.png'],
        ['image[]', png16, 'b.png'],
        ['image[]', png32x48, 'c.png'],
      ]),
    );
    expect(json.images.map((i) => `${i.filename}:${i.width}x${i.height}`)).toEqual([
      'a.png:48x32',
      'b.png:16x16',
      'c.png:32x48',
    ]);
  });

  it('accepts image and image[] together, in arrival order', async () => {
    const json = await ok(
      form([
        ['image', png16, 'first.png'],
        ['image[]', png64, 'second.png'],
      ]),
    );
    expect(json.images.map((i) => i.filename)).toEqual(['first.png', 'second.png']);
  });

  it('orders image[N] by N, not by arrival', async () => {
    const json = await ok(
      form([
        ['image[1]', png48x32, 'one.png'],
        ['image[0]', png32x48, 'zero.png'],
        ['image[10]', png16, 'ten.png'],
        ['image[2]', png64, 'two.png'],
      ]),
    );
    expect(json.images.map((i) => i.filename)).toEqual([
      'zero.png',
      'one.png',
      'two.png',
      'ten.png',
    ]);
  });

  it('rejects mixing image[] with image[N], and a repeated image[N]', async () => {
    const mixed = await fails(
      form([
        ['image[]', png16],
        ['image[0]', png16],
      ]),
    );
    expect(mixed.param).toBe('image');
    expect(mixed.message).toMatch(/not both/);
    const repeated = await fails(
      form([
        ['image[0]', png16],
        ['image[0]', png16],
      ]),
    );
    expect(repeated.param).toBe('image');
  });

  it('sniffs the format from the bytes, whatever the MIME type and file name say', async () => {
    const jpeg = await image(40, 24, 'jpeg');
    const webp = await image(24, 40, 'webp');
    const json = await ok(
      form([
        ['image[]', png64, 'photo.jpg', 'image/jpeg'],
        ['image[]', jpeg, 'picture.png', 'image/png'],
        ['image[]', webp, 'blob', 'application/octet-stream'],
        ['image[]', png16, 'x', ''],
      ]),
    );
    expect(json.images.map((i) => `${i.format}:${i.width}x${i.height}:${i.hasAlpha}`)).toEqual([
      'png:64x64:true',
      'jpeg:40x24:false',
      'webp:24x40:true',
      'png:16x16:true',
    ]);
  });

  it('rejects a file that is not PNG, JPEG or WebP with invalid_image', async () => {
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    const error = await fails(
      form([
        ['image[]', png16],
        ['image[]', gif, 'anim.png'],
      ]),
    );
    expect(error).toMatchObject({ param: 'image', code: 'invalid_image' });
    expect(error.message).toMatch(/image 2 \('anim.png'\) is not a PNG, JPEG or WebP image/);
    const empty = await fails(form([['image', Buffer.alloc(0), 'empty.png']]));
    expect(empty).toMatchObject({ param: 'image', code: 'invalid_image' });
  });

  it('requires at least one image', async () => {
    const error = await fails(form([]));
    expect(error).toMatchObject({ param: 'image', code: 'missing_required_parameter' });
  });

  it('accepts 16 images and rejects 17', async () => {
    const sixteen = Array.from({ length: 16 }, (_, i): Part => ['image[]', png16, `${i}.png`]);
    expect((await ok(form(sixteen))).images).toHaveLength(16);
    const error = await fails(form([...sixteen, ['image[]', png16, '16.png']]));
    expect(error.param).toBe('image');
    expect(error.message).toMatch(/Too many input images: 17; at most 16/);
  });

  it('rejects unknown file fields', async () => {
    const error = await fails(
      form([
        ['image', png16],
        ['photo', png16],
      ]),
    );
    expect(error).toMatchObject({ param: 'photo', code: 'unknown_parameter' });
  });

  it('rejects an image sent as a text field', async () => {
    const error = await fails(form([['image', 'data:image/png;base64,AAAA']]));
    expect(error.param).toBe('image');
    expect(error.message).toMatch(/file part/);
  });

  it('validates text fields with the shared rules', async () => {
    expect(
      await fails(
        form([
          ['image', png16],
          ['quailty', 'high'],
        ]),
      ),
    ).toMatchObject({
      param: 'quailty',
      code: 'unknown_parameter',
    });
    expect(
      await fails(
        form([
          ['image', png16],
          ['input_fidelity', 'high'],
        ]),
      ),
    ).toMatchObject({
      param: 'input_fidelity',
    });
    expect(
      await fails(
        form([
          ['image', png16],
          ['size', '1000x1000'],
        ]),
      ),
    ).toMatchObject({
      param: 'size',
      code: 'invalid_size',
    });
    expect(
      await fails(
        form([
          ['image', png16],
          ['n', 'two'],
        ]),
      ),
    ).toMatchObject({ param: 'n' });
    expect(
      await fails(
        form([
          ['image', png16],
          ['n', '1'],
          ['n', '2'],
        ]),
      ),
    ).toMatchObject({ param: 'n' });
    const noModel = await fails(
      form(
        [
          ['image', png16],
          ['prompt', 'p'],
        ],
        false,
      ),
    );
    expect(noModel).toMatchObject({ param: 'model', code: 'missing_required_parameter' });
  });

  it('rejects a body that is not multipart, and a malformed multipart body', async () => {
    const json = await fails('{"model":"image-model-2"}', { 'content-type': 'application/json' });
    expect(json.param).toBeNull();
    expect(json.message).toMatch(/multipart\/form-data/);
    const noBoundary = await fails('x', { 'content-type': 'multipart/form-data' });
    expect(noBoundary.param).toBeNull();
    const broken = await fails('--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nimage', {
      'content-type': 'multipart/form-data; boundary=b',
    });
    expect(broken.param).toBeNull();
    expect(broken.message).toMatch(/Malformed multipart body/);
  });
});

describe('parseEditMultipart: the bytes of every file', () => {
  /** Distinct bytes per file that still read as a PNG of its size (a tail after IEND). */
  const tailed = (png: Buffer, length: number, seed: number) =>
    Buffer.concat([png, Buffer.from(Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff))]);

  /** Sends `body` chunked (no Content-Length), as a streaming client would. */
  function postChunked(body: Buffer, boundary: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      for (let at = 0; at < body.length; at += 50_000) req.write(body.subarray(at, at + 50_000));
      req.end();
    });
  }

  it('hands on each image and the mask exactly as sent, with or without a Content-Length', async () => {
    const files = [tailed(png64, 3_000_000, 1), tailed(png16, 10, 2), tailed(png64, 1_500_000, 3)];
    const mask = tailed(png64, 2_000_000, 4);
    const parts: Part[] = [
      ...files.map((bytes, i): Part => ['image[]', bytes, `in${i}.png`]),
      ['mask', mask, 'mask.png'],
    ];
    const check = (edit: EditRequest) => {
      expect(edit.images.map((image, i) => image.bytes.equals(files[i]!))).toEqual([
        true,
        true,
        true,
      ]);
      expect(edit.mask!.bytes.equals(mask)).toBe(true);
    };

    const sized = nextOutcome();
    await ok(form(parts));
    const withLength = await sized;
    expect(withLength.ok).toBe(true);
    check((withLength as { edit: EditRequest }).edit);

    // The same form, encoded by fetch's own multipart writer, then sent without its length.
    const encoded = new Request('http://x/', { method: 'POST', body: form(parts) });
    const type = encoded.headers.get('content-type')!;
    const body = Buffer.from(await encoded.arrayBuffer());
    const chunked = nextOutcome();
    expect(await postChunked(body, type.split('boundary=')[1]!)).toBe(200);
    const withoutLength = await chunked;
    expect(withoutLength.ok).toBe(true);
    check((withoutLength as { edit: EditRequest }).edit);
  });
});

describe('parseEditMultipart: mask rules (spec 4.2)', () => {
  it('accepts a mask of the same format and size with alpha', async () => {
    const json = await ok(
      form([
        ['image', png64, 'in.png'],
        ['mask', png64, 'mask.png'],
      ]),
    );
    expect(json.mask).toMatchObject({ filename: 'mask.png', format: 'png', width: 64, height: 64 });
  });

  it('checks the mask against the first image', async () => {
    const json = await ok(
      form([
        ['image[1]', png16, 'second.png'],
        ['image[0]', png64, 'first.png'],
        ['mask', png64, 'mask.png'],
      ]),
    );
    expect(json.mask?.width).toBe(64);
    const error = await fails(
      form([
        ['image[1]', png64],
        ['image[0]', png16],
        ['mask', png64],
      ]),
    );
    expect(error.message).toMatch(/mask is 64x64 but the first image is 16x16/);
  });

  it('rejects a mask of other dimensions', async () => {
    const error = await fails(
      form([
        ['image', png64],
        ['mask', png48x32],
      ]),
    );
    expect(error).toMatchObject({ param: 'mask', code: 'invalid_mask' });
    expect(error.message).toBe(
      'mask is 48x32 but the first image is 64x64: the mask must have the same dimensions as the image',
    );
  });

  it('rejects a mask in another format', async () => {
    const webp = await image(64, 64, 'webp');
    const error = await fails(
      form([
        ['image', png64],
        ['mask', webp, 'mask.png'],
      ]),
    );
    expect(error).toMatchObject({ param: 'mask', code: 'invalid_mask' });
    expect(error.message).toMatch(/mask is WebP but the first image is PNG/);
  });

  it('rejects a mask without an alpha channel', async () => {
    const rgb = await image(64, 64, 'pngRgb');
    const error = await fails(
      form([
        ['image', png64],
        ['mask', rgb],
      ]),
    );
    expect(error).toMatchObject({ param: 'mask', code: 'invalid_mask' });
    expect(error.message).toBe(
      'mask has no alpha channel: export it as PNG with transparency where the image should change',
    );
  });

  it('rejects an unreadable mask, and a second mask', async () => {
    const garbage = await fails(
      form([
        ['image', png64],
        ['mask', Buffer.from('not an image')],
      ]),
    );
    expect(garbage).toMatchObject({ param: 'mask', code: 'invalid_mask' });
    const twice = await fails(
      form([
        ['image', png64],
        ['mask', png64],
        ['mask', png64],
      ]),
    );
    expect(twice.param).toBe('mask');
  });
});

describe('parseEditMultipart: size limit and interrupted uploads', () => {
  // One allocation, sliced: a PNG header followed by zeros reads as that PNG (headers only).
  const limit = LIMITS.maxInputFileBytes;
  let big: Buffer;
  beforeAll(() => {
    big = Buffer.alloc(limit + 1);
    png64.copy(big);
  });

  it('rejects a file over 50 MiB with file_too_large, and the server stays usable', async () => {
    const error = await fails(
      form([
        ['image[]', png16],
        ['image[]', big, 'huge.png'],
      ]),
    );
    expect(error).toMatchObject({ param: 'image', code: 'file_too_large' });
    expect(error.message).toMatch(
      /image 2 \('huge.png'\) is too large: files must be under 50 MiB/,
    );
    expect((await ok(form([['image', png16]]))).images).toHaveLength(1);
  });

  it('rejecting at the first part still answers 400 while the client sends the rest', async () => {
    // The server answers before the 30 MiB behind the bad part arrive, and drains them.
    const error = await fails(
      form([
        ['photo', png16],
        ['image', big.subarray(0, 30 * 1024 * 1024)],
      ]),
    );
    expect(error).toMatchObject({ param: 'photo', code: 'unknown_parameter' });
    expect((await ok(form([['image', png16]]))).images).toHaveLength(1);
  });

  it('a mask of exactly 50 MiB is too large; an image one byte under passes', async () => {
    const error = await fails(
      form([
        ['image', png64],
        ['mask', big.subarray(0, limit)],
      ]),
    );
    expect(error).toMatchObject({ param: 'mask', code: 'file_too_large' });
    const json = await ok(form([['image', big.subarray(0, limit - 1)]]));
    expect(json.images[0]).toMatchObject({ width: 64, height: 64, bytes: limit - 1 });
  });

  it('an upload cut off mid-body rejects instead of hanging', async () => {
    const outcome = nextOutcome();
    const received = nextRequest();
    const req = http.request(url, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=cut', 'content-length': '100000' },
    });
    req.on('error', () => undefined);
    req.write('--cut\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\n');
    req.write(png64);
    await received;
    req.destroy();
    const result = await outcome;
    expect(result.ok).toBe(false);
    expect((result as { error: ApiError }).error.code).toBe('client_cancelled');
  });
});
