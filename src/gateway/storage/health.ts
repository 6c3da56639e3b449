import type { Db } from './db';
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
 * few seconds, and two indexed reads cost microseconds. Never throws: a failure is the answer.
 */
export function storageHealth(db: Db): () => StorageHealth {
  return () => {
    try {
      db.prepare('SELECT 1').pluck().get();
    } catch {
      return { reachable: false, migrations: 'unknown' };
    }
    try {
      const version = db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get() as
        number | null;
      const known = MIGRATIONS.length;
      const migrations =
        version === known ? 'current' : (version ?? 0) < known ? 'behind' : 'ahead';
      return { reachable: true, migrations };
    } catch {
      return { reachable: true, migrations: 'unknown' };
    }
  };
}
