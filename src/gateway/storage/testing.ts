// Test helper (imported only by *.test.ts): real SQLite files in a throwaway folder, and real
// PostgreSQL databases on the test run's server (test/support/globalSetup.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { inject, onTestFinished } from 'vitest';
import { openDatabase, type Db } from './db';
import type { EngineKind, SqlEngine } from './engine';
import { runPostgresMigrations } from './migrations';
import { postgresEngine } from './postgresEngine';
import { sqliteEngine } from './sqliteEngine';

/** A fresh folder under the OS temp dir, removed when the calling test finishes. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-test-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A migrated database in a file of its own, closed when the calling test finishes. */
export function tempDatabase(): { db: Db; file: string } {
  const file = path.join(tempDir(), 'data', 'atelier.db');
  const db = openDatabase(file);
  onTestFinished(() => {
    db.close();
  });
  return { db, file };
}

/** Both engines, for `describe.each(ENGINES)`: every repository suite runs on each. */
export const ENGINES: readonly EngineKind[] = ['sqlite', 'postgres'];

export interface TestStorage {
  engine: SqlEngine;
  /** A second, independent connection to the same database (another process's view). */
  connect(): Promise<SqlEngine>;
}

/**
 * A database of its own on the given engine, migrated unless `migrated: false`, dropped when the
 * calling test finishes: a SQLite file in a temp folder, or a database on the run's PostgreSQL.
 */
export async function testStorage(
  kind: EngineKind,
  { migrated = true }: { migrated?: boolean } = {},
): Promise<TestStorage> {
  const engines: SqlEngine[] = [];
  const track = <E extends SqlEngine>(engine: E): E => (engines.push(engine), engine);
  onTestFinished(async () => {
    await Promise.all(engines.map((e) => e.close()));
  });
  if (kind === 'sqlite') {
    const file = path.join(tempDir(), 'data', 'atelier.db');
    const open = () => {
      if (migrated) return openDatabase(file);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      return new Database(file);
    };
    return {
      engine: track(sqliteEngine(open())),
      connect: async () => track(sqliteEngine(open())),
    };
  }
  const url = await createPostgresDatabase();
  const open = async () => {
    const engine = track(postgresEngine({ url, max: 4 }));
    await engine.listen();
    return engine;
  };
  const engine = await open();
  if (migrated) await runPostgresMigrations(engine);
  return { engine, connect: open };
}

/** A new, empty database on the run's PostgreSQL; dropped when the calling test finishes. */
export async function createPostgresDatabase(): Promise<string> {
  const server = inject('postgresUrl');
  if (!server) throw new Error(inject('postgresMissing'));
  const name = `atelier_test_${randomBytes(6).toString('hex')}`;
  await maintenance(server, `CREATE DATABASE ${name}`);
  // Registered after the engines' close (onTestFinished runs in reverse): no connection is left.
  onTestFinished(() => maintenance(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

async function maintenance(server: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Lets `ms` pass for the leases in `table` (its `column`, ms by the lease clock): each moves that
 * far into the past. Leases are judged by the database's clock on PostgreSQL, which a test cannot
 * move; this moves the leases instead, the same way on both engines.
 */
export async function ageLeases(
  engine: SqlEngine,
  table: 'account_leases' | 'limit_reservations' | 'usage_pending' | 'response_jobs',
  ms: number,
): Promise<void> {
  const column =
    table === 'usage_pending' || table === 'response_jobs' ? 'lease_until' : 'held_until';
  await engine.run(`UPDATE ${table} SET ${column} = ${column} - ?`, [ms]);
}
