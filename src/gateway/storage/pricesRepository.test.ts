import { describe, expect, it } from 'vitest';
import { openPricesRepository } from './pricesRepository';
import { ENGINES, testStorage } from './testing';

describe.each(ENGINES)('prices repository on %s', (kind) => {
  it('reads the seeded prices', async () => {
    const { engine } = await testStorage(kind);
    const prices = await openPricesRepository(engine);
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

  it('changes only the given prices of a model, in the table and in the snapshot', async () => {
    const { engine, connect } = await testStorage(kind);
    const prices = await openPricesRepository(engine, () => 42);
    const changed = {
      model: 'image-model-2',
      textInput: 5_000_000,
      imageInput: 8_000_000,
      textOutput: 10_000_000,
      imageOutput: 40_000_000,
      updatedAt: 42,
    };
    expect(await prices.set('image-model-2', { imageOutput: 40_000_000 })).toEqual(changed);
    expect(prices.get('image-model-2')).toEqual(changed);
    expect((await openPricesRepository(await connect())).get('image-model-2')).toEqual(changed);
  });

  it('adds a model only with all four prices', async () => {
    const { engine } = await testStorage(kind);
    const prices = await openPricesRepository(engine);
    await expect(prices.set('new-model', { textInput: 1 })).rejects.toThrow(
      'new-model has no prices yet: also give imageInput, textOutput, imageOutput',
    );
    expect(prices.get('new-model')).toBeNull();
    await prices.set('new-model', { textInput: 1, imageInput: 2, textOutput: 3, imageOutput: 4 });
    expect(prices.get('new-model')).toMatchObject({
      textInput: 1,
      imageInput: 2,
      textOutput: 3,
      imageOutput: 4,
    });
    expect(prices.list().map((p) => p.model)).toContain('new-model');
  });

  it('rejects prices that are not whole non-negative micro-dollars', async () => {
    const { engine } = await testStorage(kind);
    const prices = await openPricesRepository(engine);
    await expect(prices.set('image-model-2', { textInput: -1 })).rejects.toThrow(RangeError);
    await expect(prices.set('image-model-2', { textInput: 1.5 })).rejects.toThrow(RangeError);
    await expect(prices.set(' ', { textInput: 1 })).rejects.toThrow(RangeError);
    expect(prices.get('image-model-2')?.textInput).toBe(5_000_000);
  });
});

describe('prices repository: changes made elsewhere', () => {
  it('on SQLite, is stale after another connection sets a price and reads it on refresh', async () => {
    const { engine, connect } = await testStorage('sqlite');
    const prices = await openPricesRepository(engine);
    const cli = await openPricesRepository(await connect());
    await cli.set('image-model-2', { imageOutput: 1 });
    expect(prices.stale()).toBe(true);
    expect(prices.get('image-model-2')?.imageOutput).toBe(30_000_000);
    await prices.refresh();
    expect(prices.stale()).toBe(false);
    expect(prices.get('image-model-2')?.imageOutput).toBe(1);
  });

  // On PostgreSQL only: two SQLite connections are two processes (the CLI and the app), whose
  // BEGIN IMMEDIATE waits on the busy timeout; in one process the second would block the first.
  it('on PostgreSQL, keeps both of two partial updates made at once by two instances', async () => {
    const { engine, connect } = await testStorage('postgres');
    const [one, two] = await Promise.all([
      openPricesRepository(engine),
      connect().then((other) => openPricesRepository(other)),
    ]);
    await Promise.all([
      one.set('image-model-2', { textInput: 1 }),
      two.set('image-model-2', { imageOutput: 2 }),
    ]);
    const fresh = await openPricesRepository(await connect());
    expect(fresh.get('image-model-2')).toMatchObject({ textInput: 1, imageOutput: 2 });
  });
});

describe('prices repository: changes made by another instance', () => {
  it('on PostgreSQL, is stale once the change notice arrives, and reads it on refresh', async () => {
    const { engine, connect } = await testStorage('postgres');
    const prices = await openPricesRepository(engine);
    const elsewhere = await openPricesRepository(await connect());
    const noticed = new Promise<void>((resolve) => engine.onChange(() => resolve()));
    await elsewhere.set('image-model-2', { imageOutput: 7 });
    await noticed;
    expect(prices.stale()).toBe(true);
    await prices.refresh();
    expect(prices.get('image-model-2')?.imageOutput).toBe(7);
  });
});
