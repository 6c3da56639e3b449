import { describe, expect, it } from 'vitest';
import { normaliseUsage } from './tokenUsage';

const image = { imageModel: true };
const text = { imageModel: false };

describe('normaliseUsage', () => {
  it('keeps a complete upstream usage as it is', () => {
    const full = {
      input_tokens: 120,
      input_tokens_details: { text_tokens: 20, image_tokens: 100 },
      output_tokens: 4170,
      output_tokens_details: { text_tokens: 10, image_tokens: 4160 },
      total_tokens: 4290,
    };
    expect(normaliseUsage(full, image)).toEqual(full);
  });

  it('counts all output as image tokens for an image model when output details are missing', () => {
    expect(
      normaliseUsage(
        {
          input_tokens: 50,
          input_tokens_details: { text_tokens: 50, image_tokens: 0 },
          output_tokens: 1056,
          total_tokens: 1106,
        },
        image,
      ),
    ).toEqual({
      input_tokens: 50,
      input_tokens_details: { text_tokens: 50, image_tokens: 0 },
      output_tokens: 1056,
      output_tokens_details: { text_tokens: 0, image_tokens: 1056 },
      total_tokens: 1106,
    });
  });

  it('counts all output as text tokens for a text model, ignoring cached/reasoning details', () => {
    expect(
      normaliseUsage(
        {
          input_tokens: 300,
          input_tokens_details: { cached_tokens: 100 },
          output_tokens: 80,
          output_tokens_details: { reasoning_tokens: 64 },
          total_tokens: 380,
        },
        text,
      ),
    ).toEqual({
      input_tokens: 300,
      input_tokens_details: { text_tokens: 300, image_tokens: 0 },
      output_tokens: 80,
      output_tokens_details: { text_tokens: 80, image_tokens: 0 },
      total_tokens: 380,
    });
  });

  it('derives a missing total, and missing counts from their details', () => {
    expect(
      normaliseUsage(
        {
          input_tokens_details: { text_tokens: 7, image_tokens: 194 },
          output_tokens_details: { image_tokens: 272 },
        },
        image,
      ),
    ).toEqual({
      input_tokens: 201,
      input_tokens_details: { text_tokens: 7, image_tokens: 194 },
      output_tokens: 272,
      output_tokens_details: { text_tokens: 0, image_tokens: 272 },
      total_tokens: 473,
    });
  });

  it('fills the other half of a split from the total', () => {
    const u = normaliseUsage(
      {
        input_tokens: 100,
        input_tokens_details: { image_tokens: 65 },
        output_tokens: 500,
        output_tokens_details: { text_tokens: 20 },
      },
      image,
    );
    expect(u.input_tokens_details).toEqual({ text_tokens: 35, image_tokens: 65 });
    expect(u.output_tokens_details).toEqual({ text_tokens: 20, image_tokens: 480 });
    expect(u.total_tokens).toBe(600);
  });

  it('turns missing, junk and negative values into zeros, and rounds fractions', () => {
    const zero = {
      input_tokens: 0,
      input_tokens_details: { text_tokens: 0, image_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { text_tokens: 0, image_tokens: 0 },
      total_tokens: 0,
    };
    for (const raw of [undefined, null, 42, 'usage', [], {}])
      expect(normaliseUsage(raw, image)).toEqual(zero);
    expect(
      normaliseUsage(
        {
          input_tokens: -5,
          output_tokens: '100',
          total_tokens: Number.NaN,
          input_tokens_details: null,
        },
        image,
      ),
    ).toEqual(zero);
    expect(normaliseUsage({ input_tokens: 10.6, output_tokens: 2.4 }, image)).toMatchObject({
      input_tokens: 11,
      output_tokens: 2,
      total_tokens: 13,
    });
  });
});
