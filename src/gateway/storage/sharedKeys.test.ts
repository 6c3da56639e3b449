import { describe, expect, it } from 'vitest';
import { sharedKey } from './sharedKeys';
import { ENGINES, testStorage } from './testing';

describe.each(ENGINES)('shared keys on %s', (kind) => {
  it('is made once and read alike by every connection, a name per key', async () => {
    const { engine, connect } = await testStorage(kind);
    const other = await connect();
    const first = await sharedKey(engine, 'url_images', 1);
    expect(first).toHaveLength(32);
    expect(await sharedKey(other, 'url_images', 2)).toEqual(first);
    expect(await sharedKey(engine, 'another', 3)).not.toEqual(first);
  });
});

describe('shared keys on PostgreSQL, asked for by three instances at once', () => {
  it('gives all three the same key', async () => {
    const { engine, connect } = await testStorage('postgres');
    const engines = [engine, await connect(), await connect()];
    const keys = await Promise.all(engines.map((e) => sharedKey(e, 'url_images', 1)));
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(1);
  });
});
