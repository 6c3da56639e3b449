import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors';
import { LIMITS } from '../../shared/imageParams';
import { parseEditJson } from './editRequest';

let png64: Buffer;
let png32: Buffer;
let rgb64: Buffer;
let jpeg64: Buffer;

beforeAll(async () => {
  const make = (size: number, channels: 3 | 4) =>
    sharp({
      create: { width: size, height: size, channels, background: { r: 1, g: 2, b: 3, alpha: 0.5 } },
    });
  [png64, png32, rgb64, jpeg64] = await Promise.all([
    make(64, 4).png().toBuffer(),
    make(32, 4).png().toBuffer(),
    make(64, 3).png().toBuffer(),
    make(64, 3).jpeg().toBuffer(),
  ]);
});

const dataUrl = (bytes: Buffer, mime = 'image/png') =>
  `data:${mime};base64,${bytes.toString('base64')}`;
const body = (extra: Record<string, unknown> = {}) => ({
  model: 'image-model-2',
  prompt: 'make it blue',
  images: [{ image_url: dataUrl(png64) }],
  ...extra,
});

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return error as ApiError;
  }
  throw new Error('expected a 400');
}

describe('parseEditJson', () => {
  it('decodes data URLs, sniffs formats and parses the scalar fields', () => {
    const edit = parseEditJson(
      body({
        images: [{ image_url: dataUrl(png64) }, { image_url: dataUrl(jpeg64, 'image/png') }],
        mask: { image_url: dataUrl(png64) },
        quality: 'low',
        n: 2,
        moderation: null,
      }),
    );
    expect(edit.options).toMatchObject({ model: 'image-model-2', quality: 'low', n: 2 });
    expect(edit.images.map((i) => [i.format, i.width, i.filename])).toEqual([
      ['png', 64, 'image-1.png'],
      ['jpeg', 64, 'image-2.jpeg'],
    ]);
    expect(edit.images[0]!.bytes.equals(png64)).toBe(true);
    expect(edit.mask).toMatchObject({
      format: 'png',
      width: 64,
      hasAlpha: true,
      filename: 'mask.png',
    });
  });

  it('treats a null mask as absent', () => {
    expect(parseEditJson(body({ mask: null })).mask).toBeUndefined();
  });

  it('does not coerce strings', () => {
    expect(rejection(() => parseEditJson(body({ n: '2' }))).param).toBe('n');
  });

  it('rejects bodies that are not objects', () => {
    expect(rejection(() => parseEditJson([])).param).toBeNull();
  });

  it('needs 1 to 16 images', () => {
    expect(rejection(() => parseEditJson(body({ images: undefined }))).code).toBe(
      'missing_required_parameter',
    );
    expect(rejection(() => parseEditJson(body({ images: [] }))).param).toBe('images');
    expect(rejection(() => parseEditJson(body({ images: 'x' }))).param).toBe('images');
    const sixteen = Array.from({ length: 16 }, () => ({ image_url: dataUrl(png32) }));
    expect(parseEditJson(body({ images: sixteen })).images).toHaveLength(16);
    const error = rejection(() => parseEditJson(body({ images: [...sixteen, sixteen[0]] })));
    expect(error.param).toBe('images');
    expect(error.message).toMatch(/at most 16/);
  });

  it('rejects file_id references as unsupported', () => {
    const error = rejection(() => parseEditJson(body({ images: [{ file_id: 'file-123' }] })));
    expect(error).toMatchObject({ param: 'images[0].file_id', code: 'unsupported_parameter' });
  });

  it('names the image at fault for bad data URLs and base64', () => {
    const cases: unknown[] = [
      'https://example.com/cat.png',
      'data:image/png,rawbytes',
      'not a url',
      'data:image/png;base64,',
      'data:image/png;base64,iVBO$$$$',
      'data:image/png;base64,iVBORw0KG',
      42,
    ];
    for (const url of cases) {
      const images = [{ image_url: dataUrl(png64) }, { image_url: url }];
      const error = rejection(() => parseEditJson(body({ images })));
      expect(error.param, String(url)).toBe('images[1].image_url');
    }
    expect(rejection(() => parseEditJson(body({ images: [{}] }))).code).toBe(
      'missing_required_parameter',
    );
    expect(rejection(() => parseEditJson(body({ images: ['x'] }))).param).toBe('images[0]');
  });

  it('rejects undecodable images with invalid_image', () => {
    const images = [
      { image_url: `data:image/png;base64,${Buffer.from('hello world').toString('base64')}` },
    ];
    expect(rejection(() => parseEditJson(body({ images })))).toMatchObject({
      param: 'images[0].image_url',
      code: 'invalid_image',
    });
  });

  it('rejects images of 50 MiB or more before decoding them', () => {
    const digits = Math.ceil((LIMITS.maxInputFileBytes * 4) / 3) + 4;
    const images = [{ image_url: `data:image/png;base64,${'A'.repeat(digits)}` }];
    expect(rejection(() => parseEditJson(body({ images })))).toMatchObject({
      param: 'images[0].image_url',
      code: 'file_too_large',
    });
  });

  it('applies the mask rules', () => {
    const size = rejection(() => parseEditJson(body({ mask: { image_url: dataUrl(png32) } })));
    expect(size).toMatchObject({ param: 'mask', code: 'invalid_mask' });
    expect(size.message).toMatch(/mask is 32x32 but the first image is 64x64/);
    const alpha = rejection(() => parseEditJson(body({ mask: { image_url: dataUrl(rgb64) } })));
    expect(alpha.message).toMatch(/no alpha channel/);
    const format = rejection(() => parseEditJson(body({ mask: { image_url: dataUrl(jpeg64) } })));
    expect(format.message).toMatch(/mask is JPEG but the first image is PNG/);
    const bad = rejection(() =>
      parseEditJson(body({ mask: { image_url: 'data:image/png;base64,AAAA' } })),
    );
    expect(bad).toMatchObject({ param: 'mask.image_url', code: 'invalid_mask' });
    const fileId = rejection(() => parseEditJson(body({ mask: { file_id: 'f' } })));
    expect(fileId.param).toBe('mask.file_id');
  });

  it('points a singular image field at images', () => {
    const error = rejection(() => parseEditJson(body({ image: dataUrl(png64) })));
    expect(error).toMatchObject({ param: 'image', code: 'unknown_parameter' });
    expect(error.message).toMatch(/images: \[/);
  });
});
