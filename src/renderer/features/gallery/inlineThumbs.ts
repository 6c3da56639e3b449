/**
 * Thumbnails that came inline with a gallery list (its first screen), as data URLs by image id.
 * The grid shows these without a request of their own: two dozen thumbnail requests queued on
 * the browser's six connections were most of a first visit's wait (docs/benchmarks.md, "What
 * worked"). A thumbnail never changes under its id, so a held one is never stale; the oldest go
 * first past a bound (WebP thumbnails are 5-20 KB each).
 */
const MAX_HELD = 240;
const held = new Map<string, string>();

export function rememberInlineThumbs(thumbs: Record<string, string> | undefined): void {
  if (!thumbs) return;
  for (const [id, base64] of Object.entries(thumbs)) {
    held.delete(id);
    held.set(id, `data:image/webp;base64,${base64}`);
  }
  for (const id of held.keys()) {
    if (held.size <= MAX_HELD) break;
    held.delete(id);
  }
}

/** The thumbnail of `id` as a data URL, if a list brought it. */
export function inlineThumb(id: string): string | undefined {
  return held.get(id);
}
