import { describe, expect, it } from 'vitest';
import { createStudioStateRepository } from './studioStateRepository';
import { ENGINES, testStorage } from './testing';

describe.each(ENGINES)('studio state repository on %s', (kind) => {
  it('stores, replaces and removes documents by name, Object.prototype names as data', async () => {
    const { engine, connect } = await testStorage(kind);
    const state = createStudioStateRepository(engine);
    expect(await state.put('presets', '[1,2]', 1, 10)).toBe(true);
    expect(await state.put('constructor', '{"a":1}', 2, 10)).toBe(true);
    expect(await state.put('presets', '[3]', 3, 10)).toBe(true);
    const all = await createStudioStateRepository(await connect()).all();
    expect(Object.getPrototypeOf(all)).toBeNull();
    expect({ ...all }).toEqual({ constructor: { a: 1 }, presets: [3] });
    expect(await state.remove('presets')).toBe(true);
    expect(await state.remove('presets')).toBe(false);
  });

  it('refuses a new document past the limit, but still replaces a stored one', async () => {
    const { engine } = await testStorage(kind);
    const state = createStudioStateRepository(engine);
    expect(await state.put('a', '1', 1, 2)).toBe(true);
    expect(await state.put('b', '2', 1, 2)).toBe(true);
    expect(await state.put('c', '3', 1, 2)).toBe(false);
    expect(await state.put('a', '4', 1, 2)).toBe(true);
    expect({ ...(await state.all()) }).toEqual({ a: 4, b: 2 });
  });
});

describe('studio state repository on PostgreSQL, three instances at once', () => {
  it('never stores more documents than the limit', async () => {
    const { engine, connect } = await testStorage('postgres');
    const instances = [engine, await connect(), await connect()].map(createStudioStateRepository);
    const stored = await Promise.all(
      Array.from({ length: 30 }, (_, i) => instances[i % 3]!.put(`doc_${i}`, '0', i, 10)),
    );
    expect(stored.filter(Boolean)).toHaveLength(10);
    expect(await engine.get('SELECT COUNT(*) AS n FROM studio_state')).toEqual({ n: 10 });
  });
});
