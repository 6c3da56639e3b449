import { describe, expect, it } from 'vitest';
import {
  DEFAULT_IMAGE_PRICES,
  dollarsToMicros,
  estimateImageRequest,
  formatUsd,
  inputImageTokens,
  outputImageTokens,
  usageCostMicros,
} from './costEstimate';
import { emptyUsage } from './imageParams';

describe('outputImageTokens', () => {
  it('reads the 1024-class table for the reference sizes', () => {
    expect(outputImageTokens('low', 1024, 1024)).toBe(272);
    expect(outputImageTokens('medium', 1024, 1536)).toBe(1584);
    expect(outputImageTokens('high', 1536, 1024)).toBe(6208);
  });

  it('scales with the pixel count and treats auto quality as medium', () => {
    expect(outputImageTokens('medium', 2048, 2048)).toBe(1056 * 4);
    expect(outputImageTokens('auto', 1024, 1024)).toBe(1056);
    // 3840x2160 is landscape: 1568 * 8294400 / 1572864
    expect(outputImageTokens('medium', 3840, 2160)).toBe(
      Math.round((1568 * 8_294_400) / 1_572_864),
    );
  });
});

describe('inputImageTokens', () => {
  it('scales the short side to 512 and counts 512 px tiles', () => {
    expect(inputImageTokens(1024, 1024)).toBe(65 + 129);
    expect(inputImageTokens(1536, 1024)).toBe(65 + 129 * 2);
  });
});

describe('estimateImageRequest', () => {
  it('estimates one medium square image at the default prices', () => {
    const estimate = estimateImageRequest(
      {
        prompt: 'a'.repeat(40),
        size: { width: 1024, height: 1024 },
        quality: 'medium',
        n: 1,
        partialImages: 0,
      },
      DEFAULT_IMAGE_PRICES,
    );
    expect(estimate.usage.input_tokens).toBe(10);
    expect(estimate.usage.output_tokens).toBe(1056);
    // 10 text tokens at $5 + 1056 image tokens at $30 per 1M = 50 + 31_680 micros
    expect(estimate.costMicros).toBe(31_730);
    expect(estimate.assumptions).toEqual([]);
  });

  it('adds 100 tokens per partial image, and multiplies everything by n', () => {
    const estimate = estimateImageRequest(
      { prompt: '', size: { width: 1024, height: 1024 }, quality: 'low', n: 3, partialImages: 2 },
      DEFAULT_IMAGE_PRICES,
    );
    expect(estimate.usage.output_tokens_details.image_tokens).toBe((272 + 200) * 3);
    expect(estimate.perImageOutputTokens).toBe(272);
  });

  it('counts reference images of an edit as input image tokens, once per image made', () => {
    const estimate = estimateImageRequest(
      {
        prompt: '',
        size: null,
        autoSize: { width: 1536, height: 1024 },
        quality: 'auto',
        n: 2,
        partialImages: 0,
        inputImages: [{ width: 1536, height: 1024 }],
      },
      DEFAULT_IMAGE_PRICES,
    );
    expect(estimate.usage.input_tokens_details.image_tokens).toBe((65 + 129 * 2) * 2);
    expect(estimate.usage.output_tokens).toBe(1568 * 2);
    expect(estimate.assumptions).toEqual([
      'size auto estimated as 1536x1024',
      'quality auto estimated as medium',
    ]);
  });

  it('assumes 1024x1024 for auto without a hint', () => {
    const estimate = estimateImageRequest(
      { prompt: '', size: null, quality: 'high', n: 1, partialImages: 0 },
      DEFAULT_IMAGE_PRICES,
    );
    expect(estimate.usage.output_tokens).toBe(4160);
  });
});

describe('usageCostMicros', () => {
  it('prices each token class and rounds once', () => {
    const usage = emptyUsage();
    usage.input_tokens_details.text_tokens = 1;
    usage.input_tokens_details.image_tokens = 1;
    usage.output_tokens_details.image_tokens = 1000;
    // (1 * 5e6 + 1 * 8e6 + 1000 * 30e6) / 1e6 = 30_013 micros
    expect(usageCostMicros(usage, DEFAULT_IMAGE_PRICES)).toBe(30_013);
  });
});

describe('money', () => {
  it('formats small amounts with four decimals and dollars with two', () => {
    expect(formatUsd(31_730)).toBe('$0.0317');
    expect(formatUsd(1_240_000)).toBe('$1.24');
    expect(formatUsd(0)).toBe('$0.0000');
  });

  it('parses decimal dollar strings exactly', () => {
    expect(dollarsToMicros('30')).toBe(30_000_000);
    expect(dollarsToMicros('0.29')).toBe(290_000);
    expect(dollarsToMicros('1.000001')).toBe(1_000_001);
    expect(dollarsToMicros('-1')).toBeNull();
    expect(dollarsToMicros('1.0000001')).toBeNull();
  });
});
