import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openAccountsRepository } from '../accounts/repository';
import type { SqlEngine } from './engine';
import { openPricesRepository } from './pricesRepository';
import { defineSetting, openSettingsRepository } from './settingsRepository';
import { testStorage } from './testing';

const theme = defineSetting('studio.theme', z.enum(['light', 'dark', 'system']), 'system');

type Table = 'settings' | 'prices' | 'accounts';

/** `engine` with every read's table counted (the snapshots' whole-table reads). */
function countingReads(engine: SqlEngine) {
  const reads: Record<Table, number> = { settings: 0, prices: 0, accounts: 0 };
  /** Called with each counted read's result, once it is in. */
  const readDone = new Set<(table: Table) => void>();
  const counted: SqlEngine = {
    ...engine,
    all: async <T>(sql: string, params?: Parameters<SqlEngine['all']>[1]) => {
      const table = /\bFROM (settings|prices|accounts)\b/.exec(sql)?.[1] as Table | undefined;
      if (table) reads[table] += 1;
      const rows = await engine.all<T>(sql, params);
      if (table) for (const done of readDone) done(table);
      return rows;
    },
  };
  /** Resolves once a read of `table` is in and its caller has taken it (after its microtasks). */
  const nextRead = (table: Table) =>
    new Promise<void>((resolve) => {
      const done = (read: Table) => {
        if (read !== table) return;
        readDone.delete(done);
        setImmediate(resolve);
      };
      readDone.add(done);
    });
  return { counted, reads, nextRead };
}

/** Resolves with the table the next change notice `engine` hears names. */
const nextNotice = (engine: SqlEngine) =>
  new Promise<string | null>((resolve) => {
    const undo = engine.onChange((table) => {
      undo();
      resolve(table);
    });
  });

describe('change notices name what changed (PostgreSQL)', () => {
  it("an instance reads again only the table another instance's notice names", async () => {
    const { engine, connect } = await testStorage('postgres');
    const { counted, reads, nextRead } = countingReads(await connect());
    // The other instance's snapshots, as its request path holds them.
    const settings = await openSettingsRepository(counted);
    const prices = await openPricesRepository(counted);
    const accounts = await openAccountsRepository(counted);
    const snapshots = [settings, prices, accounts];
    /** What http/freshSnapshots.ts does before a request. */
    const beforeRequest = () =>
      Promise.all(snapshots.filter((s) => s.stale()).map((s) => s.refresh()));
    await beforeRequest();
    reads.settings = reads.prices = reads.accounts = 0;

    const settingsNotice = nextNotice(counted);
    await (await openSettingsRepository(engine)).set(theme, 'dark');
    expect(await settingsNotice).toBe('settings');
    await beforeRequest();
    expect(reads).toEqual({ settings: 1, prices: 0, accounts: 0 });
    expect(settings.get(theme)).toBe('dark');

    const pricesNotice = nextNotice(counted);
    await (await openPricesRepository(engine)).set('image-model-2', { imageOutput: 7 });
    expect(await pricesNotice).toBe('prices');
    await beforeRequest();
    expect(reads).toEqual({ settings: 1, prices: 1, accounts: 0 });
    expect(prices.get('image-model-2')?.imageOutput).toBe(7);

    // An account's change is read at once, by the notice itself (a rest stops the others
    // mid-request), and by nothing else.
    const accountsNotice = nextNotice(counted);
    const refreshed = nextRead('accounts');
    await (
      await openAccountsRepository(engine)
    ).create({
      name: 'alpha',
      kind: 'simulator',
      tier: 'pro',
      groupName: 'default',
      capacity: 2,
      enabled: true,
      modelMap: {},
      maxPixels: 8_294_400,
      baseUrl: 'builtin',
      issuer: null,
      bridgeModel: null,
      upstreamAccountId: null,
      secretName: null,
    });
    expect(await accountsNotice).toBe('accounts');
    await refreshed;
    await beforeRequest();
    expect(reads).toEqual({ settings: 1, prices: 1, accounts: 1 });
    expect(accounts.cached().map((a) => a.name)).toEqual(['alpha']);
  });
});
