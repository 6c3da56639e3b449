import { describe, expect, it } from 'vitest';
import type { SqlEngine } from '../storage/engine';
import { ENGINES, testStorage } from '../storage/testing';
import { openAccountsRepository, type NewAccount } from './repository';

const account = (name: string, extra: Partial<NewAccount> = {}): NewAccount => ({
  name,
  kind: 'simulator',
  tier: 'pro',
  groupName: 'default',
  capacity: 2,
  enabled: true,
  modelMap: { 'image-model-2': 'upstream-image' },
  maxPixels: 8_294_400,
  baseUrl: 'builtin',
  issuer: null,
  bridgeModel: null,
  upstreamAccountId: null,
  secretName: null,
  ...extra,
});

/**
 * Resolves once `engine` may know of another connection's commit: SQLite's data_version moves
 * with the commit itself; PostgreSQL's stamp moves when the change notice arrives.
 */
function changeHeard(engine: SqlEngine): Promise<void> {
  if (engine.kind === 'sqlite') return Promise.resolve();
  return new Promise((resolve) => {
    const undo = engine.onChange(() => {
      undo();
      resolve();
    });
  });
}

describe.each(ENGINES)('accounts repository on %s', (kind) => {
  it('creates, finds by id or name, updates and removes, the snapshot following each write', async () => {
    const { engine } = await testStorage(kind);
    const accounts = await openAccountsRepository(engine, { clock: () => 1_000 });
    expect(accounts.cached()).toEqual([]);

    const made = await accounts.create(account('alpha'));
    expect(made).toMatchObject({ name: 'alpha', enabled: true, createdAt: 1_000 });
    expect(made.modelMap).toEqual({ 'image-model-2': 'upstream-image' });
    expect(await accounts.find('alpha')).toEqual(made);
    expect(await accounts.find(made.id)).toEqual(made);
    expect(await accounts.find('nobody')).toBeNull();
    expect(accounts.cached()).toEqual([made]);

    const before = accounts.version();
    const updated = await accounts.update(made.id, { enabled: false, capacity: 5 });
    expect(updated).toMatchObject({ enabled: false, capacity: 5 });
    expect(accounts.cached()[0]).toEqual(updated);
    expect(accounts.version()).toBeGreaterThan(before);
    expect(await accounts.update('acct_missing', { capacity: 3 })).toBeNull();

    expect(await accounts.remove(made.id)).toBe(true);
    expect(await accounts.remove(made.id)).toBe(false);
    expect(accounts.cached()).toEqual([]);
    expect(await accounts.list()).toEqual([]);
  });

  it('rests an account in the snapshot at once, before the write lands, and keeps it there', async () => {
    const { engine } = await testStorage(kind);
    const accounts = await openAccountsRepository(engine);
    const { id } = await accounts.create(account('alpha'));
    const written = accounts.setCooldown(id, 5_000, 'usage limit', 'rate_limit');
    // Synchronously: the pool's next pick, in the same turn, must skip it.
    expect(accounts.cached()[0]).toMatchObject({
      cooldownUntil: 5_000,
      cooldownKind: 'rate_limit',
    });
    await written;
    expect(await accounts.get(id)).toMatchObject({
      cooldownUntil: 5_000,
      cooldownReason: 'usage limit',
      cooldownKind: 'rate_limit',
    });
    await accounts.setCooldown(id, null, null, 'rate_limit');
    expect(await accounts.get(id)).toMatchObject({ cooldownUntil: null, cooldownKind: null });
  });

  it('puts the snapshot back when a write it applied ahead fails', async () => {
    const { engine } = await testStorage(kind);
    // Created a millisecond apart: the snapshot is in creation order.
    let at = 0;
    const accounts = await openAccountsRepository(engine, { clock: () => ++at });
    await accounts.create(account('alpha'));
    const beta = await accounts.create(account('beta'));
    // Names are unique: the database refuses, and the snapshot must not keep the refused name.
    await expect(accounts.update(beta.id, { name: 'alpha' })).rejects.toThrow();
    expect(accounts.cached().map((a) => a.name)).toEqual(['alpha', 'beta']);
  });

  it("sees another connection's rest: stale, then read again; and cold, on opening", async () => {
    const { engine, connect } = await testStorage(kind);
    const here = await openAccountsRepository(engine);
    const { id } = await here.create(account('shared'));
    const otherEngine = await connect();
    const there = await openAccountsRepository(otherEngine);
    expect(there.cached()[0]?.cooldownUntil).toBeNull();

    const heard = changeHeard(otherEngine);
    await here.setCooldown(id, 9_000, 'HTTP 429', 'rate_limit');
    await heard;
    // On PostgreSQL the notice has already started a refresh of its own, which may finish first.
    if (kind === 'sqlite') expect(there.stale()).toBe(true);
    await there.refresh();
    expect(there.stale()).toBe(false);
    expect(there.cached()[0]).toMatchObject({ cooldownUntil: 9_000, cooldownKind: 'rate_limit' });

    const cold = await openAccountsRepository(await connect());
    expect(cold.cached()[0]).toMatchObject({ cooldownUntil: 9_000, cooldownReason: 'HTTP 429' });
  });

  it('reads at most twice for a burst of refreshes, the last read after the last call', async () => {
    const { engine } = await testStorage(kind);
    let reads = 0;
    const counted: SqlEngine = {
      ...engine,
      all: (sql, params) => {
        if (sql.startsWith('SELECT * FROM accounts')) reads += 1;
        return engine.all(sql, params);
      },
    };
    const accounts = await openAccountsRepository(counted);
    // The create's own change notice (PostgreSQL) has come and been read before counting starts.
    const heard = changeHeard(engine);
    const { id } = await accounts.create(account('alpha'));
    await heard;
    await accounts.refresh();
    reads = 0;
    // Written behind the repository's back (as another instance would), then ten refreshes at once.
    await engine.run('UPDATE accounts SET capacity = 9 WHERE id = ?', [id]);
    await Promise.all(Array.from({ length: 10 }, () => accounts.refresh()));
    expect(reads).toBeLessThanOrEqual(2);
    expect(accounts.cached()[0]?.capacity).toBe(9);
  });
});
