import type { SqlEngine } from './engine';
import { MIGRATIONS } from './migrations';

export interface StorageHealth {
  /** `SELECT 1` answered. */
  reachable: boolean;
  /**
   * The schema's version against this build's migrations: `behind` or `ahead` means another
   * build changed the database under this one (or a migration is missing), so neither should serve.
   */
  migrations: 'current' | 'behind' | 'ahead' | 'unknown';
}

/**
 * What the health endpoint asks of the database, on each call: a load balancer polls it every
 * few seconds, and two indexed reads cost microseconds on SQLite and two round trips on
 * PostgreSQL. Never rejects: a failure is the answer. Both engines run the one migration history
 * (storage/migrations.ts), so this build's step count is the current version on either.
 */
export function storageHealth(engine: SqlEngine): () => Promise<StorageHealth> {
  return async () => {
    try {
      await engine.get('SELECT 1 AS one');
    } catch {
      return { reachable: false, migrations: 'unknown' };
    }
    try {
      const row = await engine.get<{ version: number | null }>(
        'SELECT MAX(version) AS version FROM schema_migrations',
      );
      const version = row?.version ?? null;
      const known = MIGRATIONS.length;
      const migrations =
        version === known ? 'current' : (version ?? 0) < known ? 'behind' : 'ahead';
      return { reachable: true, migrations };
    } catch {
      return { reachable: true, migrations: 'unknown' };
    }
  };
}
