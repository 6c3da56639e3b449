import type BetterSqlite3 from 'better-sqlite3';
import type { SqlEngine, SqlQueries, SqlValue } from './engine';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/**
 * The port over one better-sqlite3 connection. Statements are prepared once per SQL text and
 * kept, so a repository's call costs what the synchronous call did plus one resolved promise.
 *
 * One connection means one transaction at a time, and a transaction's `fn` awaits: while it is
 * open, any other caller's statement would run inside it (committed or rolled back with it). So
 * the engine's own calls wait while a transaction is open (`gate`), and only the handle given to
 * `fn` reaches the connection. A second connection to the same file belongs in another process
 * (the CLI): its BEGIN IMMEDIATE waits on the busy timeout, which in the same thread would block
 * the very transaction it waits for.
 */
export function sqliteEngine(db: BetterSqlite3.Database): SqlEngine {
  // engine.ts LEASE_CLOCK: one machine's processes share one clock, the caller's.
  db.function('atelier_lease_clock', { deterministic: true }, (local: unknown) => local);
  const statements = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const direct: SqlQueries = {
    kind: 'sqlite',
    all: <T>(sql: string, params: readonly SqlValue[] = []) =>
      settle(() => prepare(sql).all(...params) as T[]),
    get: <T>(sql: string, params: readonly SqlValue[] = []) =>
      settle(() => prepare(sql).get(...params) as T | undefined),
    run: (sql: string, params: readonly SqlValue[] = []) =>
      settle(() => ({ changes: prepare(sql).run(...params).changes })),
    exec: (script: string) => settle(() => void db.exec(script)),
    announceChange: () => Promise.resolve(),
  };

  const dataVersion = db.prepare('PRAGMA data_version').pluck();

  /** Resolves when the open transaction ends; null while none is open. */
  let gate: Promise<void> | null = null;
  const outside = async <T>(call: () => Promise<T>): Promise<T> => {
    while (gate) await gate;
    return call();
  };

  return {
    kind: 'sqlite',
    // The common case (no transaction open) runs the statement at once, synchronously.
    all: (sql, params) => (gate ? outside(() => direct.all(sql, params)) : direct.all(sql, params)),
    get: (sql, params) => (gate ? outside(() => direct.get(sql, params)) : direct.get(sql, params)),
    run: (sql, params) => (gate ? outside(() => direct.run(sql, params)) : direct.run(sql, params)),
    exec: (script) => (gate ? outside(() => direct.exec(script)) : direct.exec(script)),
    announceChange: () => Promise.resolve(),
    async transaction(fn) {
      while (gate) await gate;
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      try {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(direct);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          // A failed statement may already have rolled SQLite's transaction back.
          if (db.inTransaction) db.exec('ROLLBACK');
          throw error;
        }
      } finally {
        gate = null;
        open();
      }
    },
    // Any table: SQLite says only that another connection committed.
    changeStamp: () => dataVersion.get() as number,
    // data_version is read, not pushed: a caller asks changeStamp() when it needs to know.
    onChange: () => () => {},
    // One gateway per SQLite file: its own events already reach its own listeners.
    broadcast: () => Promise.resolve(),
    onBroadcast: () => () => {},
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}

/** A synchronous call as a promise: its error rejects it rather than throwing at the caller. */
function settle<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}
