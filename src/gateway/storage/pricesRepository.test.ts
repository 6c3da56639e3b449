import { describe, expect, it } from 'vitest';
import { createPricesRepository } from './pricesRepository';
import { tempDatabase } from './testing';

describe('prices repository', () => {
  it('reads the seeded prices', () => {
    const { db } = tempDatabase();
    const prices = createPricesRepository(db);
    expect(prices.get('image-model-2-2026-04-21')).toEqual({
      model: 'image-model-2-2026-04-21',
      textInput: 5_000_000,
      imageInput: 8_000_000,
      textOutput: 10_000_000,
      imageOutput: 30_000_000,
      updatedAt: expect.any(Number),
    });
    expect(prices.get('nope')).toBeNull();
    expect(prices.list().map((p) => p.model)).toEqual([
      'agent-model-1',
      'agent-model-1-mini',
      'image-model-2',
      'image-model-2-2026-04-21',
    ]);
  });

  it('changes only the given prices of a model', () => {
    const { db } = tempDatabase();
    const prices = createPricesRepository(db, () => 42);
    expect(prices.set('image-model-2', { imageOutput: 40_000_000 })).toEqual({
      model: 'image-model-2',
      textInput: 5_000_000,
      imageInput: 8_000_000,
      textOutput: 10_000_000,
      imageOutput: 40_000_000,
      updatedAt: 42,
    });
    expect(prices.get('image-model-2')).toMatchObject({
      imageOutput: 40_000_000,
      textInput: 5_000_000,
      updatedAt: 42,
    });
  });

  it('adds a model only with all four prices', () => {
    const { db } = tempDatabase();
    const prices = createPricesRepository(db);
    expect(() => prices.set('new-model', { textInput: 1 })).toThrow(
      'new-model has no prices yet: also give imageInput, textOutput, imageOutput',
    );
    expect(prices.get('new-model')).toBeNull();
    prices.set('new-model', { textInput: 1, imageInput: 2, textOutput: 3, imageOutput: 4 });
    expect(prices.get('new-model')).toMatchObject({
      textInput: 1,
      imageInput: 2,
      textOutput: 3,
      imageOutput: 4,
    });
  });

  it('rejects prices that are not whole non-negative micro-dollars', () => {
    const { db } = tempDatabase();
    const prices = createPricesRepository(db);
    expect(() => prices.set('image-model-2', { textInput: -1 })).toThrow(RangeError);
    expect(() => prices.set('image-model-2', { textInput: 1.5 })).toThrow(RangeError);
    expect(() => prices.set(' ', { textInput: 1 })).toThrow(RangeError);
    expect(prices.get('image-model-2')?.textInput).toBe(5_000_000);
  });
});
