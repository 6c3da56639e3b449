import type { SqlEngine } from './engine';

/**
 * The studio's state documents by name (GET/PUT /api/admin/studio/state): what the studio used to
 * keep in its origin's localStorage. Values are JSON text, checked and bounded by the caller.
 */
export interface StudioStateRepository {
  /** Every document, by name. */
  all(): Promise<Record<string, unknown>>;
  /**
   * Writes the document unless it is new and `maxEntries` are stored already (false then). The
   * count and the write are one decision, also between instances on one database.
   */
  put(name: string, json: string, at: number, maxEntries: number): Promise<boolean>;
  remove(name: string): Promise<boolean>;
}

/** PostgreSQL's transaction-scoped lock that serialises the writers of new documents. */
const STUDIO_STATE_LOCK = 0x5354_5544; // 'STUD'

export function createStudioStateRepository(engine: SqlEngine): StudioStateRepository {
  return {
    async all() {
      // A null-prototype object: a document named like an Object.prototype member stays data.
      const entries: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      const rows = await engine.all<{ name: string; value: string }>(
        'SELECT name, value FROM studio_state ORDER BY name',
      );
      for (const row of rows) {
        try {
          entries[row.name] = JSON.parse(row.value) as unknown;
        } catch {
          // Written by this code as JSON: a row that is not is skipped, not fatal.
        }
      }
      return entries;
    },
    put: (name, json, at, maxEntries) =>
      engine.transaction(async (tx) => {
        // SQLite's transaction holds the write lock from its start; PostgreSQL's rows are locked
        // only as they are written, so the count is taken under a lock of its own.
        if (tx.kind === 'postgres')
          await tx.get('SELECT pg_advisory_xact_lock(?)', [STUDIO_STATE_LOCK]);
        const exists = await tx.get('SELECT 1 AS one FROM studio_state WHERE name = ?', [name]);
        if (!exists) {
          const row = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM studio_state');
          if ((row?.n ?? 0) >= maxEntries) return false;
        }
        await tx.run(
          `INSERT INTO studio_state (name, value, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
          [name, json, at],
        );
        return true;
      }),
    remove: async (name) =>
      (await engine.run('DELETE FROM studio_state WHERE name = ?', [name])).changes === 1,
  };
}
