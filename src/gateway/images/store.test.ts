import { describe, expect, it } from 'vitest';
import { emptyUsage, type TokenUsage } from '../../shared/imageParams';
import { shareCost, type KeptImage } from './store';

const usage = (imageTokens: number, textTokens = 0): TokenUsage => ({
  ...emptyUsage(),
  input_tokens: textTokens,
  input_tokens_details: { text_tokens: textTokens, image_tokens: 0 },
  output_tokens: imageTokens,
  output_tokens_details: { text_tokens: 0, image_tokens: imageTokens },
  total_tokens: imageTokens + textTokens,
});
const image = (u: TokenUsage) => ({ usage: u }) as KeptImage;
const price = {
  textInput: 5_000_000,
  imageInput: 8_000_000,
  textOutput: 10_000_000,
  imageOutput: 30_000_000,
};

describe('shareCost', () => {
  it('prices each image on its own tokens and adds up to the request exactly', () => {
    const images = [image(usage(271, 7)), image(usage(271, 7)), image(usage(4160, 7))];
    const request = Math.round((3 * 7 * 5_000_000 + (271 + 271 + 4160) * 30_000_000) / 1e6);
    const costs = shareCost({ images }, request, price);
    expect(costs.reduce((a, b) => a + b, 0)).toBe(request);
    expect(costs[2]).toBe(Math.round((7 * 5_000_000 + 4160 * 30_000_000) / 1e6));
  });

  it('splits evenly when the model has no price row', () => {
    expect(
      shareCost({ images: [image(usage(1)), image(usage(1)), image(usage(1))] }, 10, null),
    ).toEqual([4, 3, 3]);
    expect(shareCost({ images: [image(usage(1))] }, 0, null)).toEqual([0]);
  });
});
