import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../shared/imageParams';
import { splitUsage } from './usageShares';

describe('splitUsage', () => {
  it('shares every count over the images, the remainder on the first, adding up exactly', () => {
    const total = {
      input_tokens: 10,
      input_tokens_details: { text_tokens: 7, image_tokens: 3 },
      output_tokens: 1001,
      output_tokens_details: { text_tokens: 0, image_tokens: 1001 },
      total_tokens: 1011,
    };
    const parts = splitUsage(total, 3);
    expect(parts.map((p) => p.output_tokens)).toEqual([335, 333, 333]);
    expect(parts.map((p) => p.input_tokens_details.text_tokens)).toEqual([3, 2, 2]);
    for (const field of ['input_tokens', 'output_tokens', 'total_tokens'] as const) {
      expect(parts.reduce((sum, p) => sum + p[field], 0)).toBe(total[field]);
    }
    expect(splitUsage(total, 1)).toEqual([total]);
    expect(splitUsage(emptyUsage(), 2)).toEqual([emptyUsage(), emptyUsage()]);
  });
});
