import { useCallback, useEffect, useRef, useState } from 'react';
import type { ImageRecord } from '../../../shared/admin';
import type { GatewayErrorInfo } from '../../lib/api/errors';
import { subscribeAdminEvents } from '../../lib/api/adminEvents';
import type { ImageQuery } from '../../lib/api/gallery';
import { gateway } from '../../lib/api/images';
import { errorInfo } from '../../lib/hooks';
import { whenIdle } from '../../lib/idle';
import { rememberInlineThumbs } from './inlineThumbs';
import type { SearchFilters } from './gallerySearch';
import {
  cachedList,
  forgetLists,
  pendingList,
  prefetchList,
  rememberList,
  stillCurrent,
  type CachedList,
} from './galleryListCache';

/** Per request: the most the API allows, so a long scroll asks few times. */
const PAGE = 200;

export interface GalleryFilters extends SearchFilters {
  favourite: boolean;
  source: '' | 'studio' | 'api';
  /** A board's id: only its images. */
  board?: string;
}

export interface GalleryList {
  images: ImageRecord[];
  /** The first page for these filters has arrived (or failed). */
  loaded: boolean;
  /** More pages exist below. */
  more: boolean;
  error: GatewayErrorInfo | null;
  /** Asks for the next page (ignored while one is on its way). */
  loadMore: () => void;
  /** A new image from the live events: shown first if it matches the filters. */
  add: (image: ImageRecord) => void;
  replace: (image: ImageRecord) => void;
  remove: (id: string) => void;
}

export function matchesFilters(image: ImageRecord, f: GalleryFilters): boolean {
  if (f.favourite && !image.favourite) return false;
  if (f.source && image.source !== f.source) return false;
  // SQLite's LIKE, as the API uses it, ignores ASCII case.
  if (f.q && !image.prompt.toLowerCase().includes(f.q.toLowerCase())) return false;
  if (f.model && image.model !== f.model) return false;
  if (f.size && image.requestedSize !== f.size && `${image.width}x${image.height}` !== f.size) {
    return false;
  }
  if (f.key && image.apiKeyId !== f.key) return false;
  if (f.since !== undefined && image.createdAt < f.since) return false;
  if (f.until !== undefined && image.createdAt >= f.until) return false;
  return true;
}

function query(f: GalleryFilters): ImageQuery {
  return {
    q: f.q || undefined,
    favourite: f.favourite || undefined,
    source: f.source || undefined,
    board: f.board || undefined,
    model: f.model,
    size: f.size,
    key: f.key,
    since: f.since,
    until: f.until,
    limit: PAGE,
  };
}

/** The cache's key for a filter set: the query it sends, so equal queries share an entry. */
function listKey(f: GalleryFilters): string {
  return JSON.stringify(query(f));
}

/**
 * Thumbnails asked inline with a first page: a first screen of the grid at the usual window
 * sizes (24 in view at 1280x800, plus the overscan row).
 */
const FIRST_SCREEN_THUMBS = 36;

async function firstPage(
  f: GalleryFilters,
  signal?: AbortSignal,
  thumbs = FIRST_SCREEN_THUMBS,
): Promise<CachedList> {
  const page = await gateway.listImages({ ...query(f), thumbs: thumbs || undefined }, signal);
  rememberInlineThumbs(page.thumbs);
  return { images: page.images, next: page.nextBefore };
}

/** The filters a visit to the gallery starts with. */
export const DEFAULT_FILTERS: GalleryFilters = { q: '', favourite: false, source: '' };

/** Loads the gallery's first page ahead of a visit (the studio calls it when idle). */
export function prefetchGallery(): void {
  keepHeldListsCurrent();
  prefetchList(listKey(DEFAULT_FILTERS), () => firstPage(DEFAULT_FILTERS));
}

let watching = false;
/**
 * A new image makes every held list stale (it may belong at the top of any of them): they are
 * dropped, so the next visit asks for its first page instead of showing a list without the image
 * just made. A gallery on screen adds the image itself and holds its list again.
 */
function keepHeldListsCurrent(): void {
  if (watching) return;
  watching = true;
  subscribeAdminEvents({ onImage: () => forgetLists() });
}

interface State {
  key: string;
  images: ImageRecord[];
  next: number | null;
  loaded: boolean;
  error: GatewayErrorInfo | null;
}

function fromHeld(key: string, held: CachedList): State {
  return { key, images: held.images, next: held.next, loaded: true, error: null };
}

function initialState(key: string): State {
  return shownFor(null, key) ?? { key, images: [], next: null, loaded: false, error: null };
}

/** The state for `key`: its own once loaded, else what the cache holds for it (or nothing). */
function shownFor(state: State | null, key: string): State | null {
  if (state?.key === key) return state;
  const held = cachedList(listKey(JSON.parse(key) as GalleryFilters));
  return held ? fromHeld(key, held) : null;
}

/** The gallery's images for the filters, page by page as the grid scrolls (cursor paging). */
export function useGalleryList(filters: GalleryFilters): GalleryList {
  const key = JSON.stringify(filters);
  const [state, setState] = useState<State>(() => initialState(key));
  const loading = useRef(false);
  useEffect(keepHeldListsCurrent, []);

  useEffect(() => {
    const controller = new AbortController();
    const f = JSON.parse(key) as GalleryFilters;
    // What is held shows at once (see `current` below); the first page is asked again all the
    // same, and replaces it only if the gallery changed meanwhile. With a held list on screen,
    // asking waits for the page to be idle, so the thumbnails in view are fetched first. It never
    // holds up the next page: a scroll to the end of the held list goes on loading (until the
    // first page has come, `next` is null and there is no next page to ask for).
    // A held list's first screen is already painted: asking again needs no thumbnails inline.
    const held = cachedList(listKey(f)) !== undefined;
    const revalidate = () =>
      (pendingList(listKey(f)) ?? firstPage(f, controller.signal, held ? 0 : undefined)).then(
        (fresh) => {
          if (controller.signal.aborted) return;
          setState((previous) => {
            const s = shownFor(previous, key);
            if (s?.loaded && !s.error && stillCurrent(s, fresh)) {
              return fresh.next === null ? s : { ...s, next: s.next ?? fresh.next };
            }
            return { key, images: fresh.images, next: fresh.next, loaded: true, error: null };
          });
        },
        (e: unknown) => {
          if (controller.signal.aborted) return;
          setState({ key, images: [], next: null, loaded: true, error: errorInfo(e) });
        },
      );
    const cancelIdle = held ? whenIdle(() => void revalidate(), 1_000) : null;
    if (!cancelIdle) void revalidate();
    return () => {
      cancelIdle?.();
      controller.abort();
      loading.current = false;
    };
  }, [key]);

  // What the grid shows is what a revisit starts from (new, changed and deleted images included).
  useEffect(() => {
    if (state.loaded && !state.error) {
      rememberList(listKey(JSON.parse(state.key) as GalleryFilters), {
        images: state.images,
        next: state.next,
      });
    }
  }, [state]);

  const current = shownFor(state, key);
  const next = current?.next ?? null;

  const loadMore = useCallback(() => {
    if (loading.current || next === null) return;
    loading.current = true;
    const f = JSON.parse(key) as GalleryFilters;
    gateway.listImages({ ...query(f), before: next }).then(
      (page) => {
        loading.current = false;
        setState((s) => {
          if (s.key !== key || s.next !== next) return s;
          const seen = new Set(s.images.map((i) => i.id));
          return {
            ...s,
            images: [...s.images, ...page.images.filter((i) => !seen.has(i.id))],
            next: page.nextBefore,
          };
        });
      },
      (e: unknown) => {
        loading.current = false;
        setState((s) => (s.key === key ? { ...s, error: errorInfo(e) } : s));
      },
    );
  }, [key, next]);

  const add = useCallback(
    (image: ImageRecord) =>
      setState((s) => {
        if (s.key !== key || !s.loaded) return s;
        const f = JSON.parse(key) as GalleryFilters;
        // A new image is on no board yet.
        if (f.board || !matchesFilters(image, f)) return s;
        if (s.images.some((i) => i.id === image.id)) return s;
        const images = [image, ...s.images].sort(
          (a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1),
        );
        return { ...s, images };
      }),
    [key],
  );
  const replace = useCallback(
    (image: ImageRecord) =>
      setState((s) => {
        const f = JSON.parse(s.key) as GalleryFilters;
        const images = s.images.flatMap((i) =>
          i.id !== image.id ? [i] : matchesFilters(image, f) ? [image] : [],
        );
        return { ...s, images };
      }),
    [],
  );
  const remove = useCallback(
    (id: string) => setState((s) => ({ ...s, images: s.images.filter((i) => i.id !== id) })),
    [],
  );

  return {
    images: current?.images ?? [],
    loaded: current?.loaded ?? false,
    more: next !== null,
    error: current?.error ?? null,
    loadMore,
    add,
    replace,
    remove,
  };
}
