import type { Db } from './db';

/**
 * The studio's state documents by name (GET/PUT /api/admin/studio/state): what the studio used to
 * keep in its origin's localStorage. Values are JSON text, checked and bounded by the caller.
 */
export interface StudioStateRepository {
  /** Every document, by name. */
  all(): Record<string, unknown>;
  count(): number;
  has(name: string): boolean;
  put(name: string, json: string, at: number): void;
  remove(name: string): boolean;
}

export function createStudioStateRepository(db: Db): StudioStateRepository {
  const all = db.prepare('SELECT name, value FROM studio_state ORDER BY name');
  const count = db.prepare('SELECT COUNT(*) FROM studio_state').pluck();
  const has = db.prepare('SELECT 1 FROM studio_state WHERE name = ?').pluck();
  const put = db.prepare(
    `INSERT INTO studio_state (name, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare('DELETE FROM studio_state WHERE name = ?');
  return {
    all() {
      // A null-prototype object: a document named like an Object.prototype member stays data.
      const entries: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const row of all.all() as Array<{ name: string; value: string }>) {
        try {
          entries[row.name] = JSON.parse(row.value) as unknown;
        } catch {
          // Written by this code as JSON: a row that is not is skipped, not fatal.
        }
      }
      return entries;
    },
    count: () => count.get() as number,
    has: (name) => has.get(name) !== undefined,
    put: (name, json, at) => void put.run(name, json, at),
    remove: (name) => remove.run(name).changes === 1,
  };
}
