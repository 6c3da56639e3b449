import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors';
import { checkSize } from '../../shared/sizeRules';
import { parseGenerationRequest } from './generationRequest';
import { parseImageOptions, type ImageOptionsContext } from './imageOptions';

const BASE = { model: 'image-model-2', prompt: 'a lighthouse at dusk' };
const JSON_CTX: ImageOptionsContext = { endpoint: 'generations' };
const FORM_CTX: ImageOptionsContext = { endpoint: 'edits', coerceStrings: true };

function parse(extra: Record<string, unknown>, ctx = JSON_CTX) {
  return parseImageOptions({ ...BASE, ...extra }, ctx);
}

/** Runs `fn`, expects an ApiError 400 of type invalid_request_error, and returns it. */
function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const api = error as ApiError;
    expect(api.status).toBe(400);
    expect(api.type).toBe('invalid_request_error');
    return api;
  }
  throw new Error('expected a 400');
}

function expect400(
  fn: () => unknown,
  want: { param: string | null; code?: string; message?: RegExp | string },
): ApiError {
  const error = rejection(fn);
  expect(error.param).toBe(want.param);
  if (want.code) expect(error.code).toBe(want.code);
  if (typeof want.message === 'string') expect(error.message).toBe(want.message);
  else if (want.message) expect(error.message).toMatch(want.message);
  return error;
}

describe('parseImageOptions: defaults and happy paths', () => {
  it('fills defaults for a minimal request', () => {
    expect(parse({})).toEqual({
      model: 'image-model-2',
      prompt: 'a lighthouse at dusk',
      n: 1,
      size: 'auto',
      outputFormat: 'png',
      stream: false,
      partialImages: 0,
    });
  });

  it('accepts every field with real JSON types', () => {
    expect(
      parse({
        model: 'image-model-2-2026-04-21',
        n: 10,
        size: '1536x1024',
        quality: 'high',
        output_format: 'webp',
        output_compression: 80,
        background: 'opaque',
        moderation: 'low',
        stream: true,
        partial_images: 3,
        user: 'user-42',
        response_format: 'b64_json',
      }),
    ).toEqual({
      model: 'image-model-2-2026-04-21',
      prompt: 'a lighthouse at dusk',
      n: 10,
      size: '1536x1024',
      quality: 'high',
      outputFormat: 'webp',
      outputCompression: 80,
      background: 'opaque',
      moderation: 'low',
      stream: true,
      partialImages: 3,
      user: 'user-42',
    });
  });

  it('treats explicit null as absent for every optional field', () => {
    const nulls = Object.fromEntries(
      [
        'n',
        'size',
        'quality',
        'output_format',
        'output_compression',
        'background',
        'moderation',
        'stream',
        'partial_images',
        'user',
        'response_format',
        'input_fidelity',
      ].map((k) => [k, null]),
    );
    expect(parse(nulls)).toEqual(parse({}));
  });

  it('accepts output_compression 0 and 100 with jpeg', () => {
    expect(parse({ output_format: 'jpeg', output_compression: 0 }).outputCompression).toBe(0);
    expect(parse({ output_format: 'jpeg', output_compression: 100 }).outputCompression).toBe(100);
  });
});

describe('parseImageOptions: required fields', () => {
  it('model missing or null -> missing_required_parameter', () => {
    expect400(() => parseImageOptions({ prompt: 'x' }, JSON_CTX), {
      param: 'model',
      code: 'missing_required_parameter',
    });
    expect400(() => parse({ model: null }), { param: 'model', code: 'missing_required_parameter' });
  });

  it('unknown model -> model_not_found listing the valid ids', () => {
    expect400(() => parse({ model: 'agent-model-1' }), {
      param: 'model',
      code: 'model_not_found',
      message: /image-model-2, image-model-2-2026-04-21/,
    });
  });

  it('prompt missing, empty or blank', () => {
    expect400(() => parseImageOptions({ model: 'image-model-2' }, JSON_CTX), {
      param: 'prompt',
      code: 'missing_required_parameter',
    });
    expect400(() => parse({ prompt: '' }), { param: 'prompt' });
    expect400(() => parse({ prompt: '   ' }), { param: 'prompt' });
    expect400(() => parse({ prompt: 42 }), { param: 'prompt', message: /must be a string/ });
  });

  it('prompt of 32000 characters passes, 32001 fails (characters, not UTF-16 units)', () => {
    expect(parse({ prompt: 'a'.repeat(32_000) }).prompt).toHaveLength(32_000);
    expect400(() => parse({ prompt: 'a'.repeat(32_001) }), { param: 'prompt', message: /32000/ });
    // 32000 emoji are 64000 UTF-16 units but 32000 characters.
    expect(() => parse({ prompt: '\u{1F3A8}'.repeat(32_000) })).not.toThrow();
  });
});

describe('parseImageOptions: size rules of spec 8.1 at their boundaries', () => {
  const ok = (size: string) => expect(parse({ size }).size).toBe(size);
  const bad = (size: string, rule: string) => {
    const check = checkSize(size);
    expect(check.ok === false && check.rule).toBe(rule);
    expect400(() => parse({ size }), {
      param: 'size',
      code: 'invalid_size',
      message: check.ok ? '' : check.message,
    });
  };

  it('auto and the common sizes pass', () => {
    for (const size of ['auto', '1024x1024', '1536x1024', '1024x1536', '2048x2048', '2048x1152']) {
      ok(size);
    }
  });

  it('maximum edge: 3840 passes, 3856 fails (either edge)', () => {
    ok('3840x2160');
    ok('2160x3840');
    bad('3856x2160', 'max_edge');
    bad('2160x3856', 'max_edge');
  });

  it('multiple of 16: 1040 passes, 1032 and 1036 fail (either edge)', () => {
    ok('1040x1024');
    ok('1024x1040');
    bad('1032x1024', 'multiple_of_16');
    bad('1024x1036', 'multiple_of_16');
  });

  it('aspect ratio: exactly 3:1 passes, one step over fails (both orientations)', () => {
    ok('3072x1024');
    ok('1024x3072');
    bad('3088x1024', 'aspect_ratio');
    bad('1024x3088', 'aspect_ratio');
  });

  it('minimum pixels: 655360 exactly passes, one step below fails', () => {
    ok('1024x640'); // 655360
    ok('640x1024');
    bad('1024x624', 'min_pixels'); // 638976
    bad('1008x640', 'min_pixels'); // 645120
  });

  it('maximum pixels: 8294400 exactly (3840x2160) passes, just above fails', () => {
    ok('3840x2160'); // 8294400
    bad('3840x2176', 'max_pixels'); // 8355840
    bad('2176x3840', 'max_pixels');
    bad('2896x2896', 'max_pixels'); // 8386816
    ok('2880x2880'); // 8294400
  });

  it('malformed sizes fail the format rule', () => {
    for (const size of ['big', '1024*1024', '1024x', 'x1024', '1024x1024x1']) {
      bad(size, 'format');
    }
  });

  it('only the canonical spelling passes: no leading zeros, signs, spaces or capital X', () => {
    for (const size of [
      '01024x1024',
      '1024x01024',
      '001536x1024',
      '+1024x1024',
      '1024x+1024',
      '-1024x1024',
      ' 1024x1024',
      '1024x1024 ',
      '1024 x 1024',
      '1024X1024',
      '1024\u00d71024',
    ]) {
      bad(size, 'canonical');
    }
    expect400(() => parse({ size: '01024x1024' }), {
      param: 'size',
      message: /'01024x1024' is not in canonical form: .*no leading zeros, signs or spaces/,
    });
  });

  it('a non-string size names the type', () => {
    expect400(() => parse({ size: 1024 }), { param: 'size', message: /must be a string/ });
  });
});

describe('parseImageOptions: value sets and ranges', () => {
  it('n must be an integer from 1 to 10', () => {
    expect(parse({ n: 1 }).n).toBe(1);
    expect(parse({ n: 10 }).n).toBe(10);
    for (const n of [0, 11, -1, 2.5])
      expect400(() => parse({ n }), { param: 'n', message: /1 to 10/ });
  });

  it('a JSON string for a number is a 400 naming the type', () => {
    expect400(() => parse({ n: '2' }), { param: 'n', message: /got string "2".*JSON number/ });
    expect400(() => parse({ stream: 'true' }), { param: 'stream', message: /boolean/ });
    expect400(() => parse({ partial_images: '1', stream: true }), { param: 'partial_images' });
    expect400(() => parse({ output_format: 'jpeg', output_compression: '50' }), {
      param: 'output_compression',
    });
  });

  it('enumerated fields reject unknown values and list the allowed ones', () => {
    expect400(() => parse({ quality: 'ultra' }), { param: 'quality', message: /'low', 'medium'/ });
    expect400(() => parse({ output_format: 'gif' }), { param: 'output_format', message: /'png'/ });
    expect400(() => parse({ moderation: 'off' }), { param: 'moderation' });
    expect400(() => parse({ background: 'black' }), { param: 'background', message: /'opaque'/ });
  });

  it('background transparent is explained', () => {
    expect400(() => parse({ background: 'transparent' }), {
      param: 'background',
      message: /transparent backgrounds are not .*supported|not supported by this model/,
    });
  });

  it('output_compression with png (explicit or default) is rejected', () => {
    for (const extra of [{}, { output_format: 'png' }]) {
      expect400(() => parse({ ...extra, output_compression: 50 }), {
        param: 'output_compression',
        message: /only to jpeg and webp/,
      });
    }
    expect(parse({ output_format: 'webp', output_compression: 50 }).outputCompression).toBe(50);
  });

  it('output_compression outside 0..100 is rejected', () => {
    expect400(() => parse({ output_format: 'jpeg', output_compression: 101 }), {
      param: 'output_compression',
      message: /0 to 100/,
    });
    expect400(() => parse({ output_format: 'jpeg', output_compression: -1 }), {
      param: 'output_compression',
    });
  });

  it('partial_images: 0..3, and > 0 needs stream: true', () => {
    expect(parse({ stream: true, partial_images: 0 }).partialImages).toBe(0);
    expect(parse({ partial_images: 0 }).partialImages).toBe(0);
    expect(parse({ stream: true, partial_images: 3 }).partialImages).toBe(3);
    expect400(() => parse({ stream: true, partial_images: 4 }), { param: 'partial_images' });
    expect400(() => parse({ partial_images: 2 }), {
      param: 'partial_images',
      message: /needs stream: true/,
    });
    expect400(() => parse({ partial_images: 1, stream: false }), { param: 'partial_images' });
  });

  it('user: a string of at most 256 characters', () => {
    expect(parse({ user: 'u'.repeat(256) }).user).toHaveLength(256);
    expect400(() => parse({ user: 'u'.repeat(257) }), { param: 'user', message: /256/ });
    expect400(() => parse({ user: 7 }), { param: 'user', message: /string/ });
  });

  it('response_format: b64_json is the default, url is noted, and refused with streaming', () => {
    expect(parse({ response_format: 'b64_json' })).toEqual(parse({}));
    expect(parse({ response_format: 'url' }).responseFormat).toBe('url');
    expect400(() => parse({ response_format: 'url', stream: true }), {
      param: 'response_format',
      message: /cannot be used with stream: true/,
    });
    expect400(() => parse({ response_format: 'xml' }), { param: 'response_format' });
  });

  it('DALL-E-era style and quality values are accepted with a notice, others refused', () => {
    const old = parse({ style: 'vivid', quality: 'standard' });
    expect(old.quality).toBe('medium');
    expect(old.notices).toEqual([
      "quality 'standard' is a DALL-E 3 value and was read as 'medium'",
      "style 'vivid' is a DALL-E 3 parameter and was ignored",
    ]);
    expect(parse({ quality: 'hd' }).quality).toBe('high');
    expect(parse({ quality: 'low' }).notices).toBeUndefined();
    expect400(() => parse({ style: 'loud' }), { param: 'style', message: /'vivid', 'natural'/ });
  });

  it('input_fidelity is rejected with the reason', () => {
    for (const ctx of [JSON_CTX, FORM_CTX]) {
      expect400(() => parse({ input_fidelity: 'high' }, ctx), {
        param: 'input_fidelity',
        message: /high fidelity automatically/,
      });
    }
  });
});

describe('parseImageOptions: unknown parameters', () => {
  it('a typo is unknown_parameter with a suggestion', () => {
    expect400(() => parse({ quailty: 'high' }), {
      param: 'quailty',
      code: 'unknown_parameter',
      message: /Did you mean 'quality'/,
    });
    expect400(() => parse({ outputFormat: 'jpeg' }), {
      param: 'outputFormat',
      code: 'unknown_parameter',
      message: /output_format/,
    });
  });

  it('an unrelated name has no suggestion', () => {
    const error = expect400(() => parse({ temperature: 1 }), {
      param: 'temperature',
      code: 'unknown_parameter',
    });
    expect(error.message).not.toMatch(/Did you mean/);
  });

  it('an unknown parameter is rejected even when null', () => {
    expect400(() => parse({ mood: null }), { param: 'mood', code: 'unknown_parameter' });
  });
});

describe('parseImageOptions: multipart string coercion', () => {
  it('coerces numbers and booleans from strings', () => {
    const form = {
      model: 'image-model-2',
      prompt: 'p',
      n: '2',
      stream: 'true',
      partial_images: '2',
      output_format: 'jpeg',
      output_compression: '75',
    };
    expect(parseImageOptions(form, FORM_CTX)).toMatchObject({
      n: 2,
      stream: true,
      partialImages: 2,
      outputCompression: 75,
    });
    expect(
      parseImageOptions({ ...form, stream: 'FALSE', partial_images: '0' }, FORM_CTX).stream,
    ).toBe(false);
  });

  it('still rejects non-numeric and out-of-range strings', () => {
    expect400(() => parse({ n: 'two' }, FORM_CTX), { param: 'n' });
    expect400(() => parse({ n: '2.5' }, FORM_CTX), { param: 'n' });
    expect400(() => parse({ n: '11' }, FORM_CTX), { param: 'n', message: /got 11/ });
    expect400(() => parse({ stream: 'yes' }, FORM_CTX), { param: 'stream' });
  });

  it('an empty optional form field means absent; an empty model is missing', () => {
    expect(parse({ quality: '', size: '', n: '' }, FORM_CTX)).toEqual(parse({}, FORM_CTX));
    expect400(() => parse({ model: '' }, FORM_CTX), {
      param: 'model',
      code: 'missing_required_parameter',
    });
  });

  it('does not coerce in JSON mode', () => {
    expect400(() => parse({ n: '2' }), { param: 'n' });
    expect400(() => parse({ quality: '' }), { param: 'quality' });
  });
});

describe('parseGenerationRequest', () => {
  it('parses a JSON object', () => {
    expect(parseGenerationRequest({ ...BASE, size: '1024x1024' }).size).toBe('1024x1024');
  });

  it('rejects bodies that are not objects with param null', () => {
    for (const body of [undefined, null, 'text', 42, [BASE]]) {
      expect400(() => parseGenerationRequest(body), { param: null, message: /JSON object/ });
    }
  });
});
