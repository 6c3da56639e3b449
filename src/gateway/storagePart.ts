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
  health: () => StorageHealth;
  stop(): void;
}

/**
 * The storage part, the first to start and the last to stop: the data folder made private, the
 * database, and the repositories over it.
 */
export async function composeStorage(
  config: Pick<GatewayConfig, 'dataDir'>,
  log: (line: string) => void,
): Promise<StoragePart> {
  makeDataDirPrivate(config.dataDir);
  const db = openDatabase(databasePath(config.dataDir));
  try {
    // The storage port over the same connection: the repositories converted to it so far (issue
    // 21) use `engine`, the others still the synchronous `db`.
    const engine = sqliteEngine(db);
    const instance = `instance_${randomBytes(8).toString('hex')}`;
    const slotLeases =
      engine.kind === 'postgres'
        ? createSlotLeases(engine, { owner: instance, now: Date.now, log })
        : null;
    return {
      db,
      engine,
      keys: createKeysRepository(engine),
      usage: createUsageRepository(db),
      prices: await openPricesRepository(engine),
      accounts: await openAccountsRepository(engine, { log }),
      slotLeases,
      refreshLock: refreshLock(engine),
      instance,
      settings: await openSettingsRepository(engine),
      usageLedger: createUsageLedger(engine),
      jobs: createJobsRepository(engine),
      health: storageHealth(db),
      stop: () => {
        slotLeases?.close();
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
