/**
 * The storage port: what the repositories need from a SQL database, the same for the embedded
 * SQLite file and for a PostgreSQL server. Every call is async, because PostgreSQL's are; the
 * SQLite engine answers at once (better-sqlite3 is synchronous) and adds only a resolved promise.
 *
 * SQL is written once, in the subset both engines speak, with `?` placeholders (the PostgreSQL
 * engine numbers them). Where the dialects differ a repository asks `engine.kind`.
 */

/** A value a query can bind or return; booleans are stored as 0/1 (SQLite has none). */
export type SqlValue = string | number | bigint | Buffer | null;

export type EngineKind = 'sqlite' | 'postgres';

/**
 * The time leases are taken, renewed and judged by, in ms, as SQL: bind the caller's own clock
 * (`Date.now()` or the gateway's injected clock) to its one placeholder. PostgreSQL answers with
 * the database server's clock and ignores the argument, because the instances of a team gateway
 * run on machines whose clocks differ (a lease one instance takes must not look lapsed to another
 * whose clock is ahead); SQLite answers with the argument, since every process on one file shares
 * one machine's clock. The same text runs on both engines: migration 19 defines the function on
 * PostgreSQL, the SQLite engine registers it on its connection.
 *
 * A lease's length stays the caller's (`held_until = ${LEASE_CLOCK} + ?`); only its start and
 * the moment it is judged at come from the lease clock.
 */
export const LEASE_CLOCK = 'atelier_lease_clock(?)';

/** What a statement can do; a transaction's handle is one too (its statements run inside it). */
export interface SqlQueries {
  readonly kind: EngineKind;
  /** Every row of a query (or of a write with RETURNING). */
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row, or undefined. */
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** A write: how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /** A script of several statements without parameters (a migration's DDL). */
  exec(script: string): Promise<void>;
  /**
   * Tells the other connections that a table held in memory changed (settings, prices,
   * accounts), so their `changeStamp(table)` moves and only that table is read again:
   * PostgreSQL's NOTIFY naming the table, sent when the transaction commits. SQLite needs none
   * (its data_version moves by itself).
   */
  announceChange(table: string): Promise<void>;
}

export interface SqlEngine extends SqlQueries {
  /**
   * Runs `fn` in one transaction that holds the write lock from its start (SQLite's BEGIN
   * IMMEDIATE; on PostgreSQL rows are locked as they are written, and a decision that must see a
   * stable row takes `SELECT ... FOR UPDATE`). Committed when `fn` resolves, rolled back when it
   * throws. Only the handle's statements are inside it: the engine's own calls wait until it ends.
   */
  transaction<T>(fn: (tx: SqlQueries) => Promise<T>): Promise<T>;
  /**
   * A number that changes when another connection commits a change to `table`, so an in-memory
   * snapshot of it knows when to read again. On PostgreSQL the count of change notices naming
   * `table` (`announceChange`) this engine has heard, plus its listening connection's losses (a
   * notice may have been missed then, whatever it named). SQLite's `PRAGMA data_version` (one
   * cheap synchronous call) says only that the file changed, not which table.
   */
  changeStamp(table: string): number;
  /**
   * Calls `listener` with the table a change notice names when one arrives (PostgreSQL), or
   * with null when notices may have been lost (every table may have changed); returns the undo.
   */
  onChange(listener: (table: string | null) => void): () => void;
  /**
   * Sends a short text (at most 7,900 bytes of UTF-8) to every engine on this database,
   * this one included: PostgreSQL's NOTIFY on a channel of its own, so several gateway instances
   * hear what each did (http/liveEvents.ts). SQLite serves one gateway: nothing is sent.
   */
  broadcast(payload: string): Promise<void>;
  /** Calls `listener` with each broadcast heard; returns the undo. */
  onBroadcast(listener: (payload: string) => void): () => void;
  close(): Promise<void>;
}
