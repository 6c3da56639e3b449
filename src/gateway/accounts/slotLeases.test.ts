import { describe, expect, it } from 'vitest';
import { ageLeases, ENGINES, testStorage } from '../storage/testing';
import { createSlotLeases, SLOT_LEASE_MS, type SlotLease } from './slotLeases';

const quiet = () => {};

describe.each(ENGINES)('account slot leases on %s', (kind) => {
  it('weighs claims against the capacity, lets an idle account take a heavy one, and frees on release', async () => {
    const { engine } = await testStorage(kind);
    const slots = createSlotLeases(engine, { owner: 'one', now: Date.now, log: quiet });
    const first = await slots.claim('acct_a', 2, 2);
    expect(first).not.toBeNull();
    expect(await slots.claim('acct_a', 1, 2)).toBeNull();
    // Another account is not touched by the first one's load.
    const elsewhere = await slots.claim('acct_b', 1, 1);
    expect(elsewhere).not.toBeNull();
    await first!.release();
    await first!.release();
    // Idle again: a 4K call (weight 4) runs alone on an account of capacity 2.
    const heavy = await slots.claim('acct_a', 4, 2);
    expect(heavy).not.toBeNull();
    expect(await slots.claim('acct_a', 1, 2)).toBeNull();
    expect(slots.held).toBe(2);
    await heavy!.release();
    await elsewhere!.release();
    expect(await engine.get('SELECT COUNT(*) AS n FROM account_leases')).toEqual({ n: 0 });
    slots.close();
  });

  it("an expired lease returns its slot: a dead instance's claim lapses", async () => {
    const { engine } = await testStorage(kind);
    const now = Date.now();
    const dead = createSlotLeases(engine, { owner: 'dead', now: () => now, log: quiet });
    const alive = createSlotLeases(engine, { owner: 'alive', now: () => now, log: quiet });
    expect(await dead.claim('acct_a', 2, 2)).not.toBeNull();
    dead.close();
    expect(await alive.claim('acct_a', 1, 2)).toBeNull();
    await ageLeases(engine, 'account_leases', SLOT_LEASE_MS - 5_000);
    expect(await alive.claim('acct_a', 1, 2)).toBeNull();
    await ageLeases(engine, 'account_leases', 5_000);
    const after = await alive.claim('acct_a', 2, 2);
    expect(after).not.toBeNull();
    expect(await engine.all('SELECT owner FROM account_leases')).toEqual([{ owner: 'alive' }]);
    alive.close();
  });
});

describe('account slot leases across two instances (PostgreSQL)', () => {
  it("an instance whose clock runs ahead does not take a live instance's slots", async () => {
    const { engine, connect } = await testStorage('postgres');
    const onTime = createSlotLeases(engine, { owner: 'on_time', now: Date.now, log: quiet });
    // Its clock is a lease and a minute ahead: by it, the other's lease has long lapsed.
    const ahead = createSlotLeases(await connect(), {
      owner: 'ahead',
      now: () => Date.now() + SLOT_LEASE_MS + 60_000,
      log: quiet,
    });
    const held = await onTime.claim('acct_a', 1, 1);
    expect(held).not.toBeNull();
    expect(await ahead.claim('acct_a', 1, 1)).toBeNull();
    expect(await engine.all('SELECT owner FROM account_leases')).toEqual([{ owner: 'on_time' }]);
    // And a lease it takes lasts by the database's clock: one lease long, not a minute more.
    await held!.release();
    expect(await ahead.claim('acct_a', 1, 1)).not.toBeNull();
    const { left } = (await engine.get<{ left: number }>(
      'SELECT held_until - atelier_lease_clock(0) AS left FROM account_leases',
    ))!;
    expect(left).toBeGreaterThan(SLOT_LEASE_MS - 5_000);
    expect(left).toBeLessThanOrEqual(SLOT_LEASE_MS);
    onTime.close();
    ahead.close();
  });

  it('capacity 2 for 4K-class calls is never exceeded by two engines claiming at once', async () => {
    const { engine, connect } = await testStorage('postgres');
    const instances = [engine, await connect()].map((e, i) =>
      createSlotLeases(e, { owner: `i${i}`, now: Date.now, log: quiet }),
    );
    // 2 of weight 1 fit; 4K calls weigh 2 here (capacity 4 = two 4K images at once).
    const capacity = 4;
    const weight = 2;
    let inFlight = 0;
    let most = 0;
    let granted = 0;
    // 24 calls from the two instances, each holding its slot briefly, trying again when refused:
    // every call eventually runs, and no moment has more than two upstream.
    await Promise.all(
      Array.from({ length: 24 }, async (_, n) => {
        const slots = instances[n % 2]!;
        let lease: SlotLease | null = null;
        while (!lease) {
          lease = await slots.claim('acct_4k', weight, capacity);
          // Refused: wait for a release anywhere (the next commit on the table) before trying again.
          if (!lease) await engine.get('SELECT COUNT(*) FROM account_leases');
        }
        granted += 1;
        inFlight += 1;
        most = Math.max(most, inFlight);
        // The call is upstream for a round trip of its own.
        await engine.get('SELECT pg_sleep(0)');
        inFlight -= 1;
        await lease.release();
      }),
    );
    expect(granted).toBe(24);
    expect(most).toBe(capacity / weight);
    expect(await engine.get('SELECT COUNT(*) AS n FROM account_leases')).toEqual({ n: 0 });
    for (const slots of instances) slots.close();
  });
});
