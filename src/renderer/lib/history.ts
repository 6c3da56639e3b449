/** The browser history behind client-side routing, as a small interface tests can replace. */
export interface HistoryAdapter {
  current(): string;
  push(path: string): void;
  replace(path: string): void;
  /** Calls `listener` on back/forward; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

export const browserHistory: HistoryAdapter = {
  current: () => (typeof location === 'undefined' ? '/' : location.pathname),
  push: (path) => history.pushState(null, '', path),
  replace: (path) => history.replaceState(null, '', path),
  subscribe: (listener) => {
    window.addEventListener('popstate', listener);
    return () => window.removeEventListener('popstate', listener);
  },
};

/** An in-memory history for tests and for rendering outside a browser. */
export function memoryHistory(initial = '/'): HistoryAdapter & { pop(path: string): void } {
  const entries = [initial];
  const listeners = new Set<() => void>();
  return {
    current: () => entries[entries.length - 1]!,
    push: (path) => void entries.push(path),
    replace: (path) => void (entries[entries.length - 1] = path),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    /** What the back button does: another entry becomes current and listeners hear of it. */
    pop: (path) => {
      entries.push(path);
      for (const listener of listeners) listener();
    },
  };
}
