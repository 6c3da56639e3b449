import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './db';
import {
  MIGRATIONS,
  runMigrations,
  runPostgresMigrations,
  type Migration,
  type PostgresMigration,
} from './migrations';
import { tempDir, testStorage } from './testing';

describe('openDatabase', () => {
  it('creates the parent folders and sets WAL, foreign keys, busy timeout and NORMAL sync', () => {
    const file = path.join(tempDir(), 'a', 'b', 'atelier.db');
    const db = openDatabase(file);
    try {
      expect(fs.existsSync(file)).toBe(true);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // 1 = NORMAL
    } finally {
      db.close();
    }
    // WAL is a property of the file: a plain connection sees it too.
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it("reads one account's period of usage through an index, not the whole log", () => {
    const db = openDatabase(path.join(tempDir(), 'atelier.db'));
    try {
      const plan = db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT COUNT(*) FROM usage_records u
           WHERE u.upstream_account_id = ? AND u.created_at >= ? AND u.created_at < ?`,
        )
        .all('acct', 0, 1) as Array<{ detail: string }>;
      expect(plan.map((row) => row.detail).join('\n')).toMatch(
        /USING .*INDEX usage_records_account/,
      );
    } finally {
      db.close();
    }
  });

  it('applies every migration once and is idempotent across reopening', () => {
    const file = path.join(tempDir(), 'atelier.db');
    openDatabase(file).close();
    const db = openDatabase(file);
    try {
      const rows = db
        .prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')
        .all();
      expect(rows).toEqual(
        MIGRATIONS.map((m) => ({
          version: m.version,
          name: m.name,
          applied_at: expect.any(Number),
        })),
      );
      const tables = db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
        .pluck()
        .all();
      expect(tables).toEqual([
        'account_leases',
        'accounts',
        'api_keys',
        'board_images',
        'boards',
        'images',
        'limit_reservations',
        'prices',
        'response_job_events',
        'response_jobs',
        'schema_migrations',
        'secrets',
        'settings',
        'shared_keys',
        'studio_sessions',
        'studio_state',
        'usage_pending',
        'usage_records',
      ]);
      expect(runMigrations(db)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('seeds the default prices once, and a reopen keeps edited prices', () => {
    const file = path.join(tempDir(), 'atelier.db');
    const first = openDatabase(file);
    const seeded = first.prepare('SELECT * FROM prices WHERE model = ?').get('image-model-2');
    expect(seeded).toMatchObject({
      text_input: 5_000_000,
      image_input: 8_000_000,
      text_output: 10_000_000,
      image_output: 30_000_000,
    });
    expect(first.prepare('SELECT model FROM prices ORDER BY model').pluck().all()).toEqual([
      'agent-model-1',
      'agent-model-1-mini',
      'image-model-2',
      'image-model-2-2026-04-21',
    ]);
    first.prepare('UPDATE prices SET image_output = 1 WHERE model = ?').run('image-model-2');
    first.close();

    const second = openDatabase(file);
    expect(
      second
        .prepare('SELECT image_output FROM prices WHERE model = ?')
        .pluck()
        .get('image-model-2'),
    ).toBe(1);
    second.close();
  });

  it('refuses a database written by a newer schema instead of touching it', () => {
    const file = path.join(tempDir(), 'atelier.db');
    const db = openDatabase(file);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      MIGRATIONS.length + 1,
      'from-the-future',
      0,
    );
    db.close();
    expect(() => openDatabase(file)).toThrow(/newer Atelier/);
  });
});

describe('runMigrations', () => {
  it('rolls a failing migration back completely and applies nothing of it', () => {
    const db = new Database(path.join(tempDir(), 'fail.db'));
    const failing: Migration[] = [
      { version: 1, name: 'ok', up: (d) => d.exec('CREATE TABLE one (x INTEGER)') },
      {
        version: 2,
        name: 'broken',
        up: (d) => {
          d.exec('CREATE TABLE two (x INTEGER)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => runMigrations(db, failing)).toThrow('boom');
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all();
    expect(tables).toContain('one');
    expect(tables).not.toContain('two');
    expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual([1]);
    db.close();
  });

  it('rejects migrations that are not numbered 1, 2, 3...', () => {
    const db = new Database(':memory:');
    expect(() => runMigrations(db, [{ version: 2, name: 'gap', up: () => {} }])).toThrow(
      /numbered 2, expected 1/,
    );
    db.close();
  });
});

describe('runPostgresMigrations', () => {
  it('builds the tables, columns and indexes SQLite has, step for step with the same history', async () => {
    const sqlite = openDatabase(path.join(tempDir(), 'atelier.db'));
    const { engine } = await testStorage('postgres', { migrated: false });
    expect(await runPostgresMigrations(engine)).toEqual(MIGRATIONS.map((m) => m.version));
    try {
      const sqliteTables = sqlite
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
        .pluck()
        .all() as string[];
      const pgTables = await engine.all<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = 'public' ORDER BY table_name`,
      );
      expect(pgTables.map((t) => t.name)).toEqual(sqliteTables);
      for (const table of sqliteTables) {
        const sqliteColumns = (sqlite.pragma(`table_info(${table})`) as Array<{ name: string }>)
          .map((c) => c.name)
          .sort();
        const pgColumns = await engine.all<{ name: string }>(
          `SELECT column_name AS name FROM information_schema.columns
           WHERE table_schema = 'public' AND table_name = ? ORDER BY column_name`,
          [table],
        );
        expect(
          pgColumns.map((c) => c.name),
          table,
        ).toEqual(sqliteColumns);
      }
      const sqliteIndexes = sqlite
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`,
        )
        .pluck()
        .all();
      const pgIndexes = await engine.all<{ name: string }>(
        `SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public'
         AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname`,
      );
      expect(pgIndexes.map((i) => i.name)).toEqual(sqliteIndexes);
      expect(
        await engine.all('SELECT version, name FROM schema_migrations ORDER BY version'),
      ).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      expect(await engine.all('SELECT model FROM prices ORDER BY model')).toEqual(
        sqlite.prepare('SELECT model FROM prices ORDER BY model').all(),
      );
    } finally {
      sqlite.close();
    }
  });

  it('applies each step once when instances migrate at the same moment', async () => {
    const { engine, connect } = await testStorage('postgres', { migrated: false });
    const others = await Promise.all([connect(), connect()]);
    const applied = await Promise.all([engine, ...others].map((e) => runPostgresMigrations(e)));
    expect(applied.flat().sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await runPostgresMigrations(engine)).toEqual([]);
    expect(await engine.get('SELECT COUNT(*) AS n FROM schema_migrations')).toEqual({
      n: MIGRATIONS.length,
    });
  });

  it('refuses a database of a newer schema and rolls a failing step back', async () => {
    const { engine } = await testStorage('postgres', { migrated: false });
    const failing: PostgresMigration[] = [
      { version: 1, name: 'ok', up: (tx) => tx.exec('CREATE TABLE one (x INTEGER)') },
      {
        version: 2,
        name: 'broken',
        up: async (tx) => {
          await tx.exec('CREATE TABLE two (x INTEGER)');
          throw new Error('boom');
        },
      },
    ];
    await expect(runPostgresMigrations(engine, failing)).rejects.toThrow('boom');
    expect(
      await engine.all(
        `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = 'public' ORDER BY table_name`,
      ),
    ).toEqual([{ name: 'one' }, { name: 'schema_migrations' }]);
    await expect(runPostgresMigrations(engine, failing.slice(0, 0))).rejects.toThrow(
      /newer Atelier/,
    );
  });
});
