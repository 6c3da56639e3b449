import { describe, expect, it } from 'vitest';
import { openDatabase } from './db';
import { storageHealth } from './health';

describe('storage health', () => {
  it('is reachable and current on a freshly migrated database', () => {
    const db = openDatabase(':memory:');
    expect(storageHealth(db)()).toEqual({ reachable: true, migrations: 'current' });
    db.close();
  });

  it('says ahead when a newer build migrated the file further', () => {
    const db = openDatabase(':memory:');
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, ?, 0)').run(
      'from the future',
    );
    expect(storageHealth(db)().migrations).toBe('ahead');
    db.close();
  });

  it('is unreachable, not a throw, once the connection is gone', () => {
    const db = openDatabase(':memory:');
    db.close();
    const health = storageHealth(db)();
    expect(health).toEqual({ reachable: false, migrations: 'unknown' });
  });
});
