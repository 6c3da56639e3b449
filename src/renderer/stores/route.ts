import { create } from 'zustand';
import { browserHistory, type HistoryAdapter } from '../lib/history';

/** Client-side routing on the history API; the gateway serves index.html for every studio path. */
export interface RouteState {
  path: string;
  navigate: (path: string) => void;
  /** Follows back/forward; returns the unsubscribe function. */
  listen: () => () => void;
}

/** '/edit/' and '/edit' are one page. */
export function normalisePath(path: string): string {
  const clean = path.split(/[?#]/)[0] || '/';
  return clean.length > 1 ? clean.replace(/\/+$/, '') : clean;
}

export function createRouteStore(history: HistoryAdapter = browserHistory) {
  return create<RouteState>()((set, get) => ({
    path: normalisePath(history.current()),
    navigate: (path) => {
      const next = normalisePath(path);
      if (next === get().path) return;
      history.push(next);
      set({ path: next });
    },
    listen: () => history.subscribe(() => set({ path: normalisePath(history.current()) })),
  }));
}

export const useRouteStore = createRouteStore();
