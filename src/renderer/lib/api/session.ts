/**
 * The studio session can end under a running studio (30 days idle, or a restarted gateway:
 * sessions live in its memory). Any 401 makes the session store probe; docs/admin-api.md.
 */
const sessionWatchers = new Set<() => void>();

/** Calls `listener` whenever an answer suggests the studio session has ended. */
export function watchSession(listener: () => void): () => void {
  sessionWatchers.add(listener);
  return () => sessionWatchers.delete(listener);
}

/** Tells the watchers (a 401, or the event stream dropping); they confirm with a probe. */
export function doubtSession(): void {
  for (const listener of sessionWatchers) listener();
}
