import { describe, expect, it } from 'vitest';
import { emptyUsage, type TokenUsage } from '../../shared/imageParams';
import { costMicros } from './cost';
import { DEFAULT_PRICES, type Prices } from './prices';

const IMAGE_PRICES: Prices = {
  textInput: 5_000_000,
  imageInput: 8_000_000,
  textOutput: 10_000_000,
  imageOutput: 30_000_000,
};

function usage(textIn: number, imageIn: number, textOut: number, imageOut: number): TokenUsage {
  return {
    input_tokens: textIn + imageIn,
    input_tokens_details: { text_tokens: textIn, image_tokens: imageIn },
    output_tokens: textOut + imageOut,
    output_tokens_details: { text_tokens: textOut, image_tokens: imageOut },
    total_tokens: textIn + imageIn + textOut + imageOut,
  };
}

describe('costMicros', () => {
  it('prices 1000 image output tokens at $30 per 1M as 30000 micros', () => {
    expect(costMicros(usage(0, 0, 0, 1000), IMAGE_PRICES)).toBe(30_000);
  });

  it('prices each token class at its own rate and sums them', () => {
    // 50 * 5 + 1000 * 8 + 10 * 10 + 4160 * 30 = 250 + 8000 + 100 + 124800 micros
    expect(costMicros(usage(50, 1000, 10, 4160), IMAGE_PRICES)).toBe(133_150);
  });

  it('bills nothing for no tokens', () => {
    expect(costMicros(emptyUsage(), IMAGE_PRICES)).toBe(0);
  });

  it('rounds once over the whole request, half up', () => {
    // 1 text input token at $5/M = 5 micros exactly; at $0.25/M = 0.25 micros -> 0.
    expect(costMicros(usage(1, 0, 0, 0), IMAGE_PRICES)).toBe(5);
    const mini = DEFAULT_PRICES.get('agent-model-1-mini');
    expect(mini).toBeDefined();
    expect(costMicros(usage(1, 0, 0, 0), mini!)).toBe(0);
    // Two tokens of 0.25 each would round to 0 + 0 if rounded separately; together 0.5 -> 1.
    expect(costMicros(usage(1, 1, 0, 0), mini!)).toBe(1);
    expect(costMicros(usage(3, 0, 0, 0), mini!)).toBe(1); // 0.75
    expect(costMicros(usage(6, 0, 0, 0), mini!)).toBe(2); // 1.5
  });

  it('stays exact beyond 2^53 summed product', () => {
    const huge = usage(0, 0, 0, 400_000_000); // 400M tokens * 30M micros = 1.2e16 > 2^53
    expect(costMicros(huge, IMAGE_PRICES)).toBe(12_000_000_000);
    const odd = usage(0, 0, 0, 400_000_001); // 1.200000003e16 -> 12_000_000_030 micros exactly
    expect(costMicros(odd, IMAGE_PRICES)).toBe(12_000_000_030);
    // Half up on that path too: 20_000_000_001 tokens at $0.50/M = 10_000_000_000.5 micros.
    const half: Prices = { textInput: 500_000, imageInput: 0, textOutput: 0, imageOutput: 0 };
    expect(costMicros(usage(20_000_000_001, 0, 0, 0), half)).toBe(10_000_000_001);
  });
});
