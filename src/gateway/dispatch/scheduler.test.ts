import { describe, expect, it } from 'vitest';
import { QueueFullError, QueueTimeoutError, Scheduler, type SchedulableAccount } from './scheduler';

const options = { maxWaitMs: 60_000, maxQueue: 10, headPriorityMs: 1_000 };

function accounts(...list: Array<[string, number, number]>): SchedulableAccount[] {
  return list.map(([id, capacity, rank]) => ({ id, capacity, rank }));
}

/** Resolves to whether the promise has settled, without waiting on it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe('Scheduler', () => {
  it('prefers the higher tier, then the less loaded relative to capacity', async () => {
    const s = new Scheduler(options);
    const pool = accounts(['plus', 4, 1], ['pro-a', 4, 3], ['pro-b', 2, 3]);
    const first = await s.acquire({ candidates: () => pool, weight: 1 });
    expect(first.accountId).toBe('pro-a');
    // pro-a at 1/4, pro-b at 0/2: pro-b is less loaded.
    expect((await s.acquire({ candidates: () => pool, weight: 1 })).accountId).toBe('pro-b');
  });

  it('weighs requests against capacity, and lets an idle account take one heavier than itself', async () => {
    const s = new Scheduler(options);
    const pool = accounts(['a', 2, 1]);
    const heavy = await s.acquire({ candidates: () => pool, weight: 4 });
    expect(heavy.accountId).toBe('a');
    const next = s.acquire({ candidates: () => pool, weight: 1 });
    expect(await settled(next)).toBe(false);
    heavy.release();
    expect((await next).accountId).toBe('a');
  });

  it('serves waiters in arrival order as capacity frees up', async () => {
    const s = new Scheduler(options);
    const pool = accounts(['a', 1, 1]);
    const held = await s.acquire({ candidates: () => pool, weight: 1 });
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      s.acquire({ candidates: () => pool, weight: 1 }).then((l) => (order.push(n), l)),
    );
    held.release();
    (await waiters[0]!).release();
    (await waiters[1]!).release();
    await waiters[2];
    expect(order).toEqual([1, 2, 3]);
  });

  it("does not hold a request behind another group's backlog", async () => {
    const s = new Scheduler(options);
    const groupA = accounts(['a', 1, 1]);
    const groupB = accounts(['b', 1, 1]);
    await s.acquire({ candidates: () => groupA, weight: 1 });
    const queuedA = s.acquire({ candidates: () => groupA, weight: 1 });
    expect(await settled(queuedA)).toBe(false);
    const lease = await s.acquire({ candidates: () => groupB, weight: 1 });
    expect(lease.accountId).toBe('b');
  });

  it('reserves the accounts of a request that has waited long, and only those', async () => {
    let clock = 0;
    const s = new Scheduler({ ...options, now: () => clock });
    const shared = accounts(['big', 4, 1]);
    const held = await s.acquire({ candidates: () => shared, weight: 2 });
    const fourK = s.acquire({ candidates: () => shared, weight: 4 });
    // Before the head has waited long, a small request may pass it.
    const small = await s.acquire({ candidates: () => shared, weight: 1 });
    expect(small.accountId).toBe('big');
    clock = 2_000;
    small.release();
    // Now the 4K request is owed `big`: another small one waits behind it.
    const late = s.acquire({ candidates: () => shared, weight: 1 });
    expect(await settled(late)).toBe(false);
    const elsewhere = await s.acquire({ candidates: () => accounts(['other', 1, 1]), weight: 1 });
    expect(elsewhere.accountId).toBe('other');
    held.release();
    (await fourK).release();
    expect((await late).accountId).toBe('big');
  });

  it('gives up after the wait bound, and refuses when the queue is full', async () => {
    const s = new Scheduler({ ...options, maxWaitMs: 20, maxQueue: 1 });
    const pool = accounts(['a', 1, 1]);
    await s.acquire({ candidates: () => pool, weight: 1 });
    const waiting = s.acquire({ candidates: () => pool, weight: 1 });
    await expect(s.acquire({ candidates: () => pool, weight: 1 })).rejects.toBeInstanceOf(
      QueueFullError,
    );
    await expect(waiting).rejects.toBeInstanceOf(QueueTimeoutError);
  });

  it('drops a waiter whose request was cancelled', async () => {
    const s = new Scheduler(options);
    const pool = accounts(['a', 1, 1]);
    await s.acquire({ candidates: () => pool, weight: 1 });
    const controller = new AbortController();
    const waiting = s.acquire({ candidates: () => pool, weight: 1, signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toThrow(/cancelled/);
    expect(s.waiting).toBe(0);
  });
});
