import { randomBytes } from 'node:crypto';
import { openAccountsRepository, type AccountsRepository } from './accounts/repository';
import { refreshLock, type RefreshLock } from './accounts/refreshLock';
import { createSlotLeases, type SlotLeases } from './accounts/slotLeases';
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
  /**
   * The slots shared by a team gateway's instances: on PostgreSQL only. The embedded gateway is
   * one process that holds every slot in its scheduler (docs/architecture.md).
   */
  slotLeases: SlotLeases | null;
  /** OAuth refresh by one instance at a time: on PostgreSQL only (accounts/refreshLock.ts). */
  refreshLock: RefreshLock | null;
  /** This gateway instance, as the owner of its leases and limit reservations. */
  instance: string;
  settings: SettingsRepository;
  usageLedger: UsageLedger;
  jobs: JobsRepository;
  /** The database's answer to GET /healthz. */
  health: () => Promise<StorageHealth>;
  stop(): Promise<void>;
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

/**
 * The storage part, the first to start and the last to stop: the data folder made private, the
 * database (`databaseUrl`: PostgreSQL; else the folder's SQLite file), and the repositories over
 * it.
 */
export async function composeStorage(
  config: Pick<GatewayConfig, 'dataDir' | 'databaseUrl'>,
  log: (line: string) => void,
): Promise<StoragePart> {
  makeDataDirPrivate(config.dataDir);
  const { engine, db } = await openGatewayDatabase(config, log);
  try {
    const instance = `instance_${randomBytes(8).toString('hex')}`;
    const slotLeases =
      engine.kind === 'postgres'
        ? createSlotLeases(engine, { owner: instance, now: Date.now, log })
        : null;
    return {
      db,
      engine,
      keys: createKeysRepository(engine),
      usage: createUsageRepository(engine),
      prices: await openPricesRepository(engine),
      accounts: await openAccountsRepository(engine, { log }),
      slotLeases,
      refreshLock: refreshLock(engine),
      instance,
      settings: await openSettingsRepository(engine),
      usageLedger: createUsageLedger(engine),
      jobs: createJobsRepository(engine),
      health: storageHealth(engine),
      stop: async () => {
        slotLeases?.close();
        await engine.close();
      },
    };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
