import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SqlEngine } from './engine';
import { storageHealth } from './health';
import { postgresEngine } from './postgresEngine';
import { sqliteEngine } from './sqliteEngine';
import { ENGINES, testStorage } from './testing';

describe.each(ENGINES)('storage health on %s', (kind) => {
  it('is reachable and current on a freshly migrated database', async () => {
    const { engine } = await testStorage(kind);
    expect(await storageHealth(engine)()).toEqual({ reachable: true, migrations: 'current' });
  });

  it('says ahead when a newer build migrated the database further', async () => {
    const { engine } = await testStorage(kind);
    await engine.run(
      'INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, ?, 0)',
      ['from the future'],
    );
    expect((await storageHealth(engine)()).migrations).toBe('ahead');
  });

  it("says behind when the schema lacks this build's latest step", async () => {
    const { engine } = await testStorage(kind);
    await engine.run(
      'DELETE FROM schema_migrations WHERE version = (SELECT MAX(version) FROM schema_migrations)',
    );
    expect((await storageHealth(engine)()).migrations).toBe('behind');
  });

  it('is unreachable, not a rejection, when the database does not answer', async () => {
    let engine: SqlEngine;
    if (kind === 'sqlite') {
      const db = new Database(':memory:');
      engine = sqliteEngine(db);
      db.close();
    } else {
      // Port 1 on loopback: nothing listens, the connection is refused at once.
      engine = postgresEngine({ url: 'postgres://atelier@127.0.0.1:1/none', max: 1 });
      onTestFinished(() => engine.close());
    }
    expect(await storageHealth(engine)()).toEqual({ reachable: false, migrations: 'unknown' });
  });
});
