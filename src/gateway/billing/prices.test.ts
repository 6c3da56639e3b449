import { describe, expect, it } from 'vitest';
import { DEFAULT_TEXT_MODELS, IMAGE_MODELS } from '../../shared/models';
import { DEFAULT_PRICES, dollarsToMicros, formatMicros } from './prices';

describe('default prices', () => {
  it('cover every image and text model, in micro-dollars per 1M tokens', () => {
    for (const model of IMAGE_MODELS) {
      expect(DEFAULT_PRICES.get(model)).toEqual({
        textInput: 5_000_000,
        imageInput: 8_000_000,
        textOutput: 10_000_000,
        imageOutput: 30_000_000,
      });
    }
    expect(DEFAULT_PRICES.get('agent-model-1')).toEqual({
      textInput: 1_250_000,
      imageInput: 1_250_000,
      textOutput: 10_000_000,
      imageOutput: 10_000_000,
    });
    expect(DEFAULT_PRICES.get('agent-model-1-mini')).toEqual({
      textInput: 250_000,
      imageInput: 250_000,
      textOutput: 2_000_000,
      imageOutput: 2_000_000,
    });
    expect([...DEFAULT_PRICES.keys()].sort()).toEqual(
      [...IMAGE_MODELS, ...DEFAULT_TEXT_MODELS].sort(),
    );
  });
});

describe('dollarsToMicros', () => {
  it('parses decimals exactly', () => {
    expect(dollarsToMicros('30')).toBe(30_000_000);
    expect(dollarsToMicros('1.25')).toBe(1_250_000);
    expect(dollarsToMicros('0.29')).toBe(290_000);
    expect(dollarsToMicros('0.000001')).toBe(1);
    expect(dollarsToMicros(' 0 ')).toBe(0);
  });

  it('rejects what is not a non-negative amount with at most 6 decimals', () => {
    for (const bad of ['', '-1', '1.', '.5', '1.2345678', '1e3', '$5', 'abc', '1,5']) {
      expect(() => dollarsToMicros(bad)).toThrow(RangeError);
    }
    expect(() => dollarsToMicros('99999999999999')).toThrow(/too large/);
  });
});

describe('formatMicros', () => {
  it('shows cents always and more digits only when needed', () => {
    expect(formatMicros(30_000_000)).toBe('30.00');
    expect(formatMicros(1_250_000)).toBe('1.25');
    expect(formatMicros(250_000)).toBe('0.25');
    expect(formatMicros(123_400)).toBe('0.1234');
    expect(formatMicros(1)).toBe('0.000001');
    expect(formatMicros(0)).toBe('0.00');
    expect(formatMicros(-1_500_000)).toBe('-1.50');
  });
});
