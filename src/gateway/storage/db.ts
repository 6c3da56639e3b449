import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { makeFilePrivate } from '../core/privateFiles';
import { runMigrations } from './migrations';

export type Db = Database.Database;

/**
 * Opens (creating if needed) Atelier's database and brings its schema up to date. Safe to call on
 * every start and from several processes at once: the app and the `atelier` CLI share the file.
 */
export function openDatabase(file: string): Db {
  const inMemory = file === ':memory:' || file === '';
  // 0o700: the folder holds key hashes and the usage log of other people's apps.
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });

  const db = new Database(file);
  // 0600 before WAL is switched on: SQLite gives the -wal and -shm files the database's mode.
  if (!inMemory) makeFilePrivate(file);
  try {
    // The CLI and the running app can write at the same moment: wait for the lock, don't fail.
    // First, because switching to WAL itself needs the lock.
    db.pragma('busy_timeout = 5000');
    // WAL lets the usage page read while a request writes; NORMAL is durable across app crashes
    // in WAL mode (only a power loss can drop the last commits), and avoids an fsync per request.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    runMigrations(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
