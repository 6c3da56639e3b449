import { useSyncExternalStore } from 'react';

/**
 * Whether a media query matches now, re-rendering when it changes (the window is resized). Where
 * there is no `matchMedia` (tests without a DOM) it answers `fallback`.
 */
export function useMediaQuery(query: string, fallback = true): boolean {
  return useSyncExternalStore(
    (onChange) => {
      if (typeof matchMedia === 'undefined') return () => undefined;
      const list = matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    () => (typeof matchMedia === 'undefined' ? fallback : matchMedia(query).matches),
    () => fallback,
  );
}
