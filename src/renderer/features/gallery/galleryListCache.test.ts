import { afterEach, describe, expect, it } from 'vitest';
import type { ImageRecord } from '../../../shared/admin';
import {
  MAX_CACHED_IMAGES,
  cachedList,
  forgetLists,
  pendingList,
  prefetchList,
  rememberList,
  stillCurrent,
} from './galleryListCache';

const image = (id: string, favourite = false) =>
  ({ id, favourite, createdAt: Number(id.slice(1)) }) as unknown as ImageRecord;

describe('the gallery list cache', () => {
  afterEach(() => forgetLists());

  it('a held list stands while the fresh first page matches its head', () => {
    const held = { images: [image('a3'), image('a2'), image('a1')], next: 1 };
    expect(stillCurrent(held, { images: [image('a3'), image('a2')], next: 2 })).toBe(true);
    // A new image at the head, a favourite toggled elsewhere, an image deleted at the end.
    expect(stillCurrent(held, { images: [image('a4'), image('a3')], next: 3 })).toBe(false);
    expect(stillCurrent(held, { images: [image('a3', true), image('a2')], next: 2 })).toBe(false);
    expect(stillCurrent(held, { images: [image('a3'), image('a2')], next: null })).toBe(false);
    expect(stillCurrent({ images: [image('a1')], next: null }, held)).toBe(false);
  });

  it('keeps lists up to its bound, and the newest filter sets', () => {
    const long = Array.from({ length: MAX_CACHED_IMAGES + 1 }, (_, i) => image(`a${i}`));
    rememberList('long', { images: long, next: null });
    expect(cachedList('long')).toBeUndefined();
    for (let i = 0; i < 9; i++) rememberList(`k${i}`, { images: [image('a1')], next: null });
    expect(cachedList('k0')).toBeUndefined();
    expect(cachedList('k8')?.images).toHaveLength(1);
  });

  it('a prefetch runs once, is shared while on its way, and fills the cache', async () => {
    let calls = 0;
    const load = () => {
      calls += 1;
      return Promise.resolve({ images: [image('a1')], next: null });
    };
    prefetchList('k', load);
    prefetchList('k', load);
    const pending = pendingList('k');
    expect(pending).toBeDefined();
    await pending;
    expect(calls).toBe(1);
    expect(cachedList('k')?.images.map((i) => i.id)).toEqual(['a1']);
    prefetchList('k', load);
    expect(calls).toBe(1);
  });

  it('a failed prefetch leaves nothing behind, so the visit asks again', async () => {
    prefetchList('k', () => Promise.reject(new Error('offline')));
    await expect(pendingList('k')).rejects.toThrow('offline');
    await Promise.resolve();
    expect(pendingList('k')).toBeUndefined();
    expect(cachedList('k')).toBeUndefined();
  });
});
