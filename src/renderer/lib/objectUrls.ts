/**
 * Object URLs for images the page shows. A URL is revoked a little after it stops being needed,
 * not at once: when a newer partial or a new run replaces an image, React has not yet rendered the
 * replacement and the browser may still be fetching the old URL for an <img> that is on screen.
 * Revoking it then makes Chromium fail the load ("net::ERR_FILE_NOT_FOUND") and flash a broken
 * image. A few seconds of a blob kept alive costs nothing worth measuring.
 */
const GRACE_MS = 5_000;

export function createObjectUrl(blob: Blob): string {
  return URL.createObjectURL(blob);
}

export function retireObjectUrl(url: string, graceMs = GRACE_MS): void {
  setTimeout(() => URL.revokeObjectURL(url), graceMs);
}
