import { describe, expect, it } from 'vitest';
import {
  appendFields,
  checkParams,
  DEFAULT_PARAMS,
  requestFields,
  sanitizeParams,
  type ImageParams,
} from './params';
import { composePrompt, EMPTY_DRAFT, promptProblem, sanitizeDraft } from './composePrompt';

const custom = (w: string, h: string): ImageParams => ({
  ...DEFAULT_PARAMS,
  size: 'custom',
  customWidth: w,
  customHeight: h,
});

describe('checkParams: custom size as you type', () => {
  it.each([
    ['', '1024', 'incomplete', 'whole numbers'],
    ['10', '', 'incomplete', 'whole numbers'],
    ['4096', '1024', 'max_edge', 'at most 3840 px'],
    ['1000', '1000', 'multiple_of_16', 'multiple of 16 px'],
    ['3072', '1008', 'aspect_ratio', 'at most 3:1'],
    ['512', '512', 'min_pixels', 'below the minimum 655360'],
    ['3840', '2176', 'max_pixels', 'above the maximum 8294400'],
  ])('%sx%s fails %s', (w, h, rule, words) => {
    const check = checkParams(custom(w, h));
    expect(check.ok).toBe(false);
    expect(check.sizeRule).toBe(rule);
    expect(check.issues.size).toContain(words);
    expect(check.size).toBeNull();
  });

  it('accepts a valid custom size and warns above 2560x1440', () => {
    const check = checkParams(custom('1536', '864'));
    expect(check).toMatchObject({ ok: true, size: '1536x864', sizeRule: null, warnings: [] });
    const big = checkParams(custom('3840', '2160'));
    expect(big.ok).toBe(true);
    expect(big.warnings[0]).toContain('experimental');
  });

  it('sends typed leading zeros in the canonical spelling the gateway accepts', () => {
    expect(checkParams(custom('01536', '0864'))).toMatchObject({ ok: true, size: '1536x864' });
  });

  it('passes auto and the common sizes through', () => {
    expect(checkParams({ ...DEFAULT_PARAMS, size: 'auto' })).toMatchObject({
      ok: true,
      size: 'auto',
      dimensions: null,
    });
    expect(checkParams({ ...DEFAULT_PARAMS, size: '2048x1152' }).dimensions).toEqual({
      width: 2048,
      height: 1152,
    });
  });
});

describe('checkParams: other fields', () => {
  it('names each field that is out of range by its API name', () => {
    const check = checkParams({
      ...DEFAULT_PARAMS,
      n: 11,
      partialImages: 4,
      outputFormat: 'jpeg',
      compression: 101,
    });
    expect(Object.keys(check.issues).sort()).toEqual(['n', 'output_compression', 'partial_images']);
  });

  it('ignores compression for PNG and partial images without streaming', () => {
    const check = checkParams({
      ...DEFAULT_PARAMS,
      compression: 500,
      stream: false,
      partialImages: 9,
    });
    expect(check.ok).toBe(true);
  });

  it('refuses a transparent background from old presets with the reason', () => {
    const check = checkParams({ ...DEFAULT_PARAMS, background: 'transparent' as never });
    expect(check.issues.background).toContain('not supported');
  });
});

describe('requestFields', () => {
  it('sends compression only for JPEG and WebP, and partial images only when streaming', () => {
    expect(requestFields(DEFAULT_PARAMS, '1024x1024')).toEqual({
      model: 'image-model-2',
      size: '1024x1024',
      quality: 'medium',
      output_format: 'png',
      background: 'auto',
      moderation: 'auto',
      n: 1,
      stream: true,
      partial_images: 2,
    });
    const fields = requestFields(
      { ...DEFAULT_PARAMS, outputFormat: 'webp', stream: false },
      'auto',
    );
    expect(fields.output_compression).toBe(90);
    expect('partial_images' in fields).toBe(false);
  });

  it('writes every value as a string into a multipart form', () => {
    const form = new FormData();
    appendFields(form, { n: 2, stream: true, model: 'image-model-2' });
    expect([...form.entries()]).toEqual([
      ['n', '2'],
      ['stream', 'true'],
      ['model', 'image-model-2'],
    ]);
  });
});

describe('sanitizeParams', () => {
  it('keeps valid stored values and replaces the rest with defaults', () => {
    expect(
      sanitizeParams({ n: 3, quality: 'high', background: 'transparent', partialImages: 7 }),
    ).toEqual({
      ...DEFAULT_PARAMS,
      n: 3,
      quality: 'high',
    });
    expect(sanitizeParams(null)).toEqual(DEFAULT_PARAMS);
  });
});

describe('composePrompt', () => {
  it('puts the free text first, then one line per filled field in a fixed order', () => {
    const prompt = composePrompt({
      ...EMPTY_DRAFT,
      text: '  A lighthouse at dusk ',
      style: 'watercolour',
      subject: 'a lighthouse keeper!',
      constraints: 'no text,\n  no logos',
    });
    expect(prompt).toBe(
      'A lighthouse at dusk\n\nSubject: a lighthouse keeper!\nStyle: watercolour.\nConstraints: no text, no logos.',
    );
  });

  it('works with structure fields alone, or free text alone', () => {
    expect(composePrompt({ ...EMPTY_DRAFT, lighting: 'soft fog' })).toBe('Lighting: soft fog.');
    expect(composePrompt({ ...EMPTY_DRAFT, text: 'Just this' })).toBe('Just this');
    expect(composePrompt(EMPTY_DRAFT)).toBe('');
  });

  it('explains an empty or too long prompt', () => {
    expect(promptProblem('  ')).toContain('Describe the image');
    expect(promptProblem('x'.repeat(32_001))).toContain('at most 32000');
    expect(promptProblem('ok')).toBeNull();
  });

  it('reads a stored draft defensively', () => {
    expect(sanitizeDraft({ text: 'a', camera: 3 })).toEqual({ ...EMPTY_DRAFT, text: 'a' });
  });
});

describe('checkParams: every failing size rule', () => {
  it('lists each failing rule and names them all in one message', () => {
    const check = checkParams(custom('4000', '333'));
    expect(check.sizeRule).toBe('max_edge');
    expect(check.sizeRules).toEqual(['max_edge', 'multiple_of_16', 'aspect_ratio']);
    expect(check.issues.size).toContain('at most 3840 px');
    expect(check.issues.size).toContain('multiple of 16 px');
    expect(check.issues.size).toContain('at most 3:1');
    expect(checkParams(custom('1536', '864')).sizeRules).toEqual([]);
  });
});
