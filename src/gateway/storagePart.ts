import { createAccountsRepository, type AccountsRepository } from './accounts/repository';
import type { GatewayConfig } from './config';
import { databasePath } from './core/dataDir';
import { makeDataDirPrivate } from './core/privateFiles';
import { createKeysRepository, type KeysRepository } from './keys/repository';
import { createUsageLedger, type UsageLedger } from './limits';
import { createJobsRepository, type JobsRepository } from './responseJobs/repository';
import { openDatabase, type Db } from './storage/db';
import type { SqlEngine } from './storage/engine';
import { storageHealth, type StorageHealth } from './storage/health';
import { openPricesRepository, type PricesRepository } from './storage/pricesRepository';
import { openSettingsRepository, type SettingsRepository } from './storage/settingsRepository';
import { sqliteEngine } from './storage/sqliteEngine';
import { createUsageRepository, type UsageRepository } from './usage/repository';

/** The storage part's piece: the database and the repositories over it. */
export interface StoragePart {
  db: Db;
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
  stop(): void;
}

/**
 * What still runs only on the SQLite file, through better-sqlite3's synchronous handle: a team
 * gateway (`--database`) cannot start while anything is listed, because its instances would each
 * keep that state apart (issue 21).
 */
export const SQLITE_ONLY: readonly string[] = [
  'accounts',
  'the limits ledger',
  'background response jobs',
];

/** Why `--database` cannot start this build, or null when it can. */
export function postgresRefusal(): string | null {
  if (SQLITE_ONLY.length === 0) return null;
  return (
    `--database (PostgreSQL) cannot start yet: ${SQLITE_ONLY.join(', ')} still run on the ` +
    'SQLite file only (issue 21). Run without --database to use the data folder.'
  );
}

/**
 * The storage part, the first to start and the last to stop: the data folder made private, the
 * database, and the repositories over it.
 */
export async function composeStorage(
  config: Pick<GatewayConfig, 'dataDir' | 'databaseUrl'>,
): Promise<StoragePart> {
  if (config.databaseUrl !== undefined) {
    // Nothing is opened or written, the data folder included, before the refusal.
    const refusal = postgresRefusal();
    if (refusal) throw new Error(refusal);
  }
  makeDataDirPrivate(config.dataDir);
  const db = openDatabase(databasePath(config.dataDir));
  try {
    // The storage port over the same connection: the repositories converted to it so far (issue
    // 21) use `engine`, the others still the synchronous `db`.
    const engine = sqliteEngine(db);
    return {
      db,
      engine,
      keys: createKeysRepository(engine),
      usage: createUsageRepository(engine),
      prices: await openPricesRepository(engine),
      accounts: createAccountsRepository(db),
      settings: await openSettingsRepository(engine),
      usageLedger: createUsageLedger(db),
      jobs: createJobsRepository(db),
      health: storageHealth(engine),
      stop: () => {
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
