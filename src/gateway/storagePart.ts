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
  health: () => StorageHealth;
  stop(): void;
}

/**
 * The storage part, the first to start and the last to stop: the data folder made private, the
 * database, and the repositories over it.
 */
export async function composeStorage(config: Pick<GatewayConfig, 'dataDir'>): Promise<StoragePart> {
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
      usage: createUsageRepository(db),
      prices: await openPricesRepository(engine),
      accounts: createAccountsRepository(db),
      settings: await openSettingsRepository(engine),
      usageLedger: createUsageLedger(db),
      jobs: createJobsRepository(engine),
      health: storageHealth(db),
      stop: () => {
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
