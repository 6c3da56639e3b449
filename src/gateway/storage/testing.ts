// Test helper (imported only by *.test.ts): real SQLite files in a throwaway folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { openDatabase, type Db } from './db';

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
