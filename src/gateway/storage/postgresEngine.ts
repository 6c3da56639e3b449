import { createRequire } from 'node:module';
import type pg from 'pg';
import type { SqlEngine, SqlQueries, SqlValue } from './engine';
import { runPostgresMigrations } from './migrations';
import { numberPlaceholders } from './placeholders';

/**
 * pg, loaded when a PostgreSQL engine is first made: a gateway without `--database` never loads
 * it. A static import (or an import() a bundler resolves) would be hoisted to the top of the one
 * bundle every `atelier` command runs (test/architecture/startupImports.test.ts).
 */
let loadedPg: typeof pg | null = null;
const pgLibrary = (): typeof pg => (loadedPg ??= createRequire(import.meta.url)('pg') as typeof pg);

/** PostgreSQL's type ids for BIGINT (COUNT, timestamps in ms) and NUMERIC (SUM of BIGINTs). */
const INT8_OID = 20;
const NUMERIC_OID = 1700;

function parseNumber(text: string): number {
  const value = Number(text);
  // Every integer Atelier stores (ms timestamps, micro-dollars, tokens) fits in 2^53; one that
  // does not would be silently rounded, so it is an error instead.
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new RangeError(`${text} does not fit in a JavaScript number`);
  }
  return value;
}

/**
 * pg returns BIGINT and NUMERIC as strings (they can exceed 2^53): here they are numbers, as
 * better-sqlite3 returns them, so a repository reads the same row from either engine.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID || oid === NUMERIC_OID
      ? parseNumber
      : pgLibrary().types.getTypeParser(
          oid,
          format ?? 'text',
        )) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PostgresEngineOptions {
  /** `postgres://user@host:port/database` */
  url: string;
  /** Connections the pool may open. */
  max?: number;
  /** Where an idle connection's error is reported (the server restarted, the network dropped). */
  log?: (line: string) => void;
}

type Client = pg.Pool | pg.PoolClient;

/** The channel of change notices (storage/engine.ts `announceChange`). */
const CHANGES_CHANNEL = 'atelier_changes';
/**
 * PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more; a broadcast stays below with room
 * to spare, and a longer one is refused before it is sent (RangeError).
 */
export const BROADCAST_MAX_BYTES = 7_900;
/** The channel of broadcasts (storage/engine.ts `broadcast`). */
const BROADCAST_CHANNEL = 'atelier_broadcast';
/** How long a lost listening connection waits before it connects again. */
const RELISTEN_MS = 1_000;

export interface PostgresEngine extends SqlEngine {
  /**
   * Opens the connection that LISTENs for change notices; until then `changeStamp()` moves only
   * by this engine's own announcements. openPostgresDatabase calls it.
   */
  listen(): Promise<void>;
}

/**
 * The port over a pg connection pool. Each distinct SQL text becomes a named prepared statement
 * (parsed and planned once per connection), and its `?` placeholders are numbered once.
 */
export function postgresEngine(options: PostgresEngineOptions): PostgresEngine {
  const pool = new (pgLibrary().Pool)({
    connectionString: options.url,
    max: options.max ?? 10,
    types,
  });
  // Without a listener an idle connection's error would crash the process.
  pool.on('error', (error) => options.log?.(`PostgreSQL connection error: ${error.message}`));

  const prepared = new Map<string, { name: string; text: string }>();
  const statement = (sql: string) => {
    let found = prepared.get(sql);
    if (!found) {
      found = { name: `atelier_${prepared.size + 1}`, text: numberPlaceholders(sql) };
      prepared.set(sql, found);
    }
    return found;
  };
  const query = async (client: Client, sql: string, params: readonly SqlValue[] = []) => {
    const { name, text } = statement(sql);
    return client.query({ name, text, values: params as unknown[] });
  };
  const queriesOn = (client: Client): SqlQueries => ({
    kind: 'postgres',
    all: async <T>(sql: string, params?: readonly SqlValue[]) =>
      (await query(client, sql, params)).rows as T[],
    get: async <T>(sql: string, params?: readonly SqlValue[]) =>
      (await query(client, sql, params)).rows[0] as T | undefined,
    run: async (sql, params) => ({ changes: (await query(client, sql, params)).rowCount ?? 0 }),
    // The simple query protocol: several statements, none prepared or kept.
    exec: async (script) => void (await client.query(script)),
    announceChange: async (table) =>
      void (await query(client, `SELECT pg_notify('${CHANGES_CHANNEL}', ?)`, [table])),
  });

  /** Notices heard per table, and losses of the listening connection (every table's). */
  const stamps = new Map<string, number>();
  let losses = 0;
  const changeListeners = new Set<(table: string | null) => void>();
  const broadcastListeners = new Set<(payload: string) => void>();
  const bump = (table: string | null) => {
    if (table === null) losses += 1;
    else stamps.set(table, (stamps.get(table) ?? 0) + 1);
    for (const listener of changeListeners) listener(table);
  };
  let listener: pg.Client | null = null;
  let relisten: NodeJS.Timeout | null = null;
  let closed = false;
  const listen = async (): Promise<void> => {
    const client = new (pgLibrary().Client)({ connectionString: options.url, types });
    const lost = (why: string) => {
      if (listener !== client || closed) return;
      listener = null;
      options.log?.(`PostgreSQL change notices lost (${why}); listening again`);
      // Notices may have been missed: every snapshot reads again.
      bump(null);
      relisten = setTimeout(() => {
        relisten = null;
        listen().catch((error: Error) => lost(error.message));
      }, RELISTEN_MS);
      relisten.unref();
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('connection closed'));
    client.on('notification', (notice) => {
      if (notice.channel === CHANGES_CHANNEL) bump(notice.payload ?? null);
      else if (notice.channel === BROADCAST_CHANNEL) {
        for (const hear of broadcastListeners) hear(notice.payload ?? '');
      }
    });
    listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}; LISTEN ${BROADCAST_CHANNEL}`);
    } catch (error) {
      lost((error as Error).message);
      throw error;
    }
  };

  return {
    ...queriesOn(pool),
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        try {
          const result = await fn(queriesOn(client));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch((rollbackError: Error) => {
            // The connection is unusable: the pool must not hand it out again.
            broken = rollbackError;
          });
          throw error;
        }
      } finally {
        client.release(broken);
      }
    },
    changeStamp: (table) => losses + (stamps.get(table) ?? 0),
    onChange(fn) {
      changeListeners.add(fn);
      return () => changeListeners.delete(fn);
    },
    async broadcast(payload) {
      const bytes = Buffer.byteLength(payload, 'utf8');
      if (bytes > BROADCAST_MAX_BYTES) {
        throw new RangeError(`A broadcast of ${bytes} bytes is over ${BROADCAST_MAX_BYTES}`);
      }
      await query(pool, `SELECT pg_notify('${BROADCAST_CHANNEL}', ?)`, [payload]);
    },
    onBroadcast(fn) {
      broadcastListeners.add(fn);
      return () => broadcastListeners.delete(fn);
    },
    listen,
    async close() {
      closed = true;
      if (relisten) clearTimeout(relisten);
      const listening = listener;
      listener = null;
      await Promise.all([pool.end(), listening?.end()]);
    },
  };
}

/** A pool on `url` with the schema brought up to date (every instance may call it at once). */
export async function openPostgresDatabase(options: PostgresEngineOptions): Promise<SqlEngine> {
  const engine = postgresEngine(options);
  try {
    await runPostgresMigrations(engine);
    await engine.listen();
    return engine;
  } catch (error) {
    await engine.close();
    throw error;
  }
}
