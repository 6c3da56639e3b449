import { describe, expect, it } from 'vitest';
import { createNoiseCache } from './noiseCache';

const value = (v: string) => () => Promise.resolve(v);

describe('noise cache', () => {
  it('keeps entries within its byte budget, evicting the least recently used', async () => {
    const cache = createNoiseCache(10);
    await cache.get('a', value('aaaa'));
    await cache.get('b', value('bbbb'));
    expect(await cache.get('a', value('other'))).toBe('aaaa'); // a is now the most recent
    await cache.get('c', value('cccc')); // 12 bytes: b goes
    expect(await cache.get('b', value('fresh'))).toBe('fresh');
    expect(await cache.get('c', value('other'))).toBe('cccc');
  });

  it('never keeps a value larger than the whole budget', async () => {
    const cache = createNoiseCache(3);
    await cache.get('big', value('xxxx'));
    expect(await cache.get('big', value('again'))).toBe('again');
  });

  it('makes a value once for concurrent callers, and does not keep a failure', async () => {
    const cache = createNoiseCache();
    let made = 0;
    const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve(`v${++made}`), 5));
    const results = await Promise.all([cache.get('k', slow), cache.get('k', slow)]);
    expect(results).toEqual(['v1', 'v1']);
    await expect(cache.get('bad', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await cache.get('bad', value('ok'))).toBe('ok');
  });
});
