/**
 * Runs `work` once the page is idle (or after `timeoutMs` at the latest); returns a cancel. Where
 * requestIdleCallback is missing (some test environments), a plain timer stands in.
 */
export function whenIdle(work: () => void, timeoutMs = 3_000): () => void {
  if (typeof requestIdleCallback !== 'function') {
    const timer = setTimeout(work, Math.min(timeoutMs, 1_000));
    return () => clearTimeout(timer);
  }
  const handle = requestIdleCallback(work, { timeout: timeoutMs });
  return () => cancelIdleCallback(handle);
}
