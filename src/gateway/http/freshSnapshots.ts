import type { NextFunction, Request, Response } from 'express';

/** A table held in memory that can tell when the database changed under it. */
export interface Snapshot {
  /** Whether another connection changed the database since it was read. */
  stale(): boolean;
  refresh(): Promise<void>;
}

/**
 * Before a request reads any setting or price (the Origin check reads the allowed origins): the
 * snapshots the request path reads (settings, prices) are read again when another connection
 * changed the database since. Nearly always nothing changed, and the request goes on at once,
 * without a query or a promise.
 */
export function freshSnapshots(snapshots: readonly Snapshot[]) {
  return (_req: Request, _res: Response, next: NextFunction): void => {
    const stale = snapshots.filter((s) => s.stale());
    if (stale.length === 0) {
      next();
      return;
    }
    Promise.all(stale.map((s) => s.refresh())).then(() => next(), next);
  };
}
