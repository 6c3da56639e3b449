import { createAccountsRepository, type AccountsRepository } from './accounts/repository';
import type { GatewayConfig } from './config';
import { databasePath } from './core/dataDir';
import { makeDataDirPrivate } from './core/privateFiles';
import { createKeysRepository, type KeysRepository } from './keys/repository';
import { createUsageLedger, type UsageLedger } from './limits/ledger';
import { createJobsRepository, type JobsRepository } from './responseJobs/repository';
import { openDatabase, type Db } from './storage/db';
import type { SqlEngine } from './storage/engine';
import { storageHealth, type StorageHealth } from './storage/health';
import { openPricesRepository, type PricesRepository } from './storage/pricesRepository';
import { openSettingsRepository, type SettingsRepository } from './storage/settingsRepository';
import { openPostgresDatabase } from './storage/postgresEngine';
import { sqliteEngine } from './storage/sqliteEngine';
import { createUsageRepository, type UsageRepository } from './usage/repository';

/** The storage part's piece: the database and the repositories over it. */
export interface StoragePart {
  /** better-sqlite3's synchronous handle on the SQLite file; null on PostgreSQL. */
  db: Db | null;
  engine: SqlEngine;
  keys: KeysRepository;
  usage: UsageRepository;
  prices: PricesRepository;
  accounts: AccountsRepository;
  settings: SettingsRepository;
  usageLedger: UsageLedger;
  jobs: JobsRepository;
  /** The database's answer to GET /healthz. */
  health: () => Promise<StorageHealth>;
  stop(): Promise<void>;
}

/**
 * What still runs only on the SQLite file, through better-sqlite3's synchronous handle: a team
 * gateway (`--database`) cannot start while anything is listed, because its instances would each
 * keep that state apart (issue 21).
 */
export const SQLITE_ONLY: readonly string[] = ['accounts', 'the limits ledger'];

/** Why `--database` cannot start this build, or null when it can. */
export function postgresRefusal(): string | null {
  if (SQLITE_ONLY.length === 0) return null;
  return (
    `--database (PostgreSQL) cannot start yet: ${SQLITE_ONLY.join(', ')} still run on the ` +
    'SQLite file only (issue 21). Run without --database to use the data folder.'
  );
}

/** The database a gateway opens: the data folder's SQLite file, or a PostgreSQL server. */
interface OpenedDatabase {
  engine: SqlEngine;
  /** better-sqlite3's synchronous handle on the same file; null on PostgreSQL. */
  db: Db | null;
}

async function openGatewayDatabase(
  config: Pick<GatewayConfig, 'dataDir' | 'databaseUrl'>,
  log: (line: string) => void,
): Promise<OpenedDatabase> {
  if (config.databaseUrl !== undefined) {
    // Migrated when opened, one instance at a time (an advisory lock).
    return { engine: await openPostgresDatabase({ url: config.databaseUrl, log }), db: null };
  }
  const db = openDatabase(databasePath(config.dataDir));
  return { engine: sqliteEngine(db), db };
}

/** The synchronous handle a repository not yet on the port needs (postgresRefusal keeps it). */
function sqliteOnly(db: Db | null, what: string): Db {
  if (!db) throw new Error(`${what} run on the SQLite file only (issue 21)`);
  return db;
}

/**
 * The storage part, the first to start and the last to stop: the data folder made private, the
 * database (`databaseUrl`: PostgreSQL; else the folder's SQLite file), and the repositories over
 * it.
 */
export async function composeStorage(
  config: Pick<GatewayConfig, 'dataDir' | 'databaseUrl'>,
  log: (line: string) => void = () => undefined,
): Promise<StoragePart> {
  if (config.databaseUrl !== undefined) {
    // Nothing is opened or written, the data folder included, before the refusal.
    const refusal = postgresRefusal();
    if (refusal) throw new Error(refusal);
  }
  makeDataDirPrivate(config.dataDir);
  const { engine, db } = await openGatewayDatabase(config, log);
  try {
    return {
      db,
      engine,
      keys: createKeysRepository(engine),
      usage: createUsageRepository(engine),
      prices: await openPricesRepository(engine),
      accounts: createAccountsRepository(sqliteOnly(db, 'accounts')),
      settings: await openSettingsRepository(engine),
      usageLedger: createUsageLedger(sqliteOnly(db, 'the limits ledger')),
      jobs: createJobsRepository(engine),
      health: storageHealth(engine),
      stop: () => engine.close(),
    };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
