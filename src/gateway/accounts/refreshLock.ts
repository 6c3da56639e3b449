import type { SqlEngine } from '../storage/engine';

/** Runs `work` while no other instance refreshes the same account's OAuth tokens. */
export type RefreshLock = <T>(accountId: string, work: () => Promise<T>) => Promise<T>;

/**
 * OAuth refresh by one instance at a time (refresh tokens rotate: a second refresh with the same
 * token logs the account out). On PostgreSQL, a transaction-scoped advisory lock on the account:
 * the others wait, then read the new tokens from the shared store instead of refreshing
 * (oauth/tokenManager.ts). The embedded SQLite gateway is one process, whose token manager
 * already shares one refresh among its callers: it takes no lock (null).
 */
export function refreshLock(engine: SqlEngine): RefreshLock | null {
  if (engine.kind !== 'postgres') return null;
  return (accountId, work) =>
    engine.transaction(async (tx) => {
      await tx.get('SELECT pg_advisory_xact_lock(hashtext(?))', [`oauth-refresh:${accountId}`]);
      return work();
    });
}
