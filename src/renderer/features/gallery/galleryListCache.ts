import type { ImageRecord } from '../../../shared/admin';

/**
 * The gallery's list as it was last seen, per filter set, so opening the gallery again paints at
 * once from memory while the first page is asked for again (stale while revalidating). The studio
 * also fills it for the default filters when it is idle after starting, so even the first visit
 * does not wait for the list. Memory only: a restart starts empty.
 */
export interface CachedList {
  images: ImageRecord[];
  /** The cursor of the page after the last one held (null: the list is complete). */
  next: number | null;
}

/** A list longer than this is not kept: a revisit starts from the first page again. */
export const MAX_CACHED_IMAGES = 2_000;
const MAX_LISTS = 8;

const lists = new Map<string, CachedList>();
const pending = new Map<string, Promise<CachedList>>();

export function cachedList(key: string): CachedList | undefined {
  return lists.get(key);
}

export function rememberList(key: string, list: CachedList): void {
  lists.delete(key);
  if (list.images.length > MAX_CACHED_IMAGES) return;
  lists.set(key, list);
  // Oldest first in a Map's order: drop filter sets not seen for a while.
  while (lists.size > MAX_LISTS) lists.delete(lists.keys().next().value!);
}

/**
 * Loads the first page for `key` ahead of a visit, unless it is held or already on its way. A
 * failure is dropped: the visit asks again and shows that error itself.
 */
export function prefetchList(key: string, load: () => Promise<CachedList>): void {
  if (lists.has(key) || pending.has(key)) return;
  const request = load().then((list) => {
    if (!lists.has(key)) rememberList(key, list);
    return list;
  });
  pending.set(key, request);
  request.then(
    () => pending.delete(key),
    () => pending.delete(key),
  );
}

/** A prefetch for `key` still on its way, for a visit to wait on instead of asking twice. */
export function pendingList(key: string): Promise<CachedList> | undefined {
  return pending.get(key);
}

/**
 * Whether a held list still stands against a freshly loaded first page: the same records in the
 * same order (a favourite toggled elsewhere counts as a change), and nothing more held when the
 * fresh page says the list ends there.
 */
export function stillCurrent(held: CachedList, fresh: CachedList): boolean {
  if (held.images.length < fresh.images.length) return false;
  if (fresh.next === null && held.images.length !== fresh.images.length) return false;
  return fresh.images.every((image, i) => JSON.stringify(held.images[i]) === JSON.stringify(image));
}

export function forgetLists(): void {
  lists.clear();
  pending.clear();
}
