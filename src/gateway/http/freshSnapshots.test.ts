import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { freshSnapshots, type Snapshot } from './freshSnapshots';

/** A snapshot over a counter standing in for the database's change stamp. */
function snapshot(reads: string[], name: string, fail?: Error) {
  let seen = 0;
  let stamp = 0;
  const s: Snapshot & { change(): void } = {
    stale: () => stamp !== seen,
    async refresh() {
      reads.push(name);
      if (fail) throw fail;
      seen = stamp;
    },
    change: () => void (stamp += 1),
  };
  return s;
}

const run = (middleware: ReturnType<typeof freshSnapshots>) =>
  new Promise<{ error: unknown; sync: boolean }>((resolve) => {
    let returned = false;
    const next: NextFunction = (error?: unknown) => resolve({ error, sync: !returned });
    middleware({} as Request, {} as Response, next);
    returned = true;
  });

describe('freshSnapshots', () => {
  it('goes on at once, reading nothing, while no snapshot is stale', async () => {
    const reads: string[] = [];
    const middleware = freshSnapshots([snapshot(reads, 'settings'), snapshot(reads, 'prices')]);
    expect(await run(middleware)).toEqual({ error: undefined, sync: true });
    expect(reads).toEqual([]);
  });

  it('reads the stale ones again before the request goes on, and only those', async () => {
    const reads: string[] = [];
    const settings = snapshot(reads, 'settings');
    const prices = snapshot(reads, 'prices');
    const middleware = freshSnapshots([settings, prices]);
    prices.change();
    expect(await run(middleware)).toEqual({ error: undefined, sync: false });
    expect(reads).toEqual(['prices']);
    expect(prices.stale()).toBe(false);
    // Once read, the next request goes on at once again.
    expect((await run(middleware)).sync).toBe(true);
  });

  it('hands a failed read to the error handler', async () => {
    const failure = new Error('database is locked');
    const broken = snapshot([], 'settings', failure);
    broken.change();
    expect((await run(freshSnapshots([broken]))).error).toBe(failure);
  });
});
