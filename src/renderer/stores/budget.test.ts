import { describe, expect, it } from 'vitest';
import type { BudgetAlert, KeyView, PatchKeyBody } from '../../shared/admin';
import { createBudgetStore, type BudgetDeps } from './budget';

const NOW = Date.UTC(2026, 10, 24, 12);
const START = NOW - 3_600_000;

function studioKey(over: Partial<KeyView> = {}): KeyView {
  return {
    id: 'key_studio',
    name: 'Studio',
    group: 'default',
    prefix: 'abc',
    status: 'active',
    createdAt: 0,
    lastUsedAt: null,
    concurrencyLimit: null,
    fallbackLadder: false,
    requests: 0,
    costMicros: 0,
    builtIn: true,
    budgetMicros: null,
    budgetPeriod: null,
    rpmLimit: null,
    imagesPerDay: null,
    expiresAt: null,
    limitUse: {
      budgetUsedMicros: null,
      budgetResetsAt: null,
      imagesToday: 0,
      requestsLastMinute: 0,
    },
    ...over,
  };
}

/** The store over an in-memory gateway and storage, so its rules can be read in isolation. */
function setup(storage = new Map<string, unknown>()) {
  const gateway = {
    key: studioKey(),
    spent: 0,
    patches: [] as PatchKeyBody[],
    reads: 0,
    /** Reads in progress are held until released, to test what happens meanwhile. */
    hold: null as Promise<void> | null,
  };
  const deps: BudgetDeps = {
    studioKey: async () => {
      gateway.reads++;
      if (gateway.hold) await gateway.hold;
      return gateway.key;
    },
    updateKey: async (_id, patch) => {
      gateway.patches.push(patch);
      if (patch.budgetMicros !== undefined) {
        gateway.key = {
          ...gateway.key,
          budgetMicros: patch.budgetMicros,
          budgetPeriod: patch.budgetMicros === null ? null : (patch.budgetPeriod ?? 'month'),
          limitUse: {
            ...gateway.key.limitUse,
            budgetUsedMicros: patch.budgetMicros === null ? null : gateway.spent,
          },
        };
      }
      return gateway.key;
    },
    spentSince: async (keyId, since) => {
      expect(keyId).toBe('key_studio');
      expect(since).toBe(START);
      return gateway.spent;
    },
    now: () => NOW,
    read: (key, parse) => (storage.has(key) ? parse(storage.get(key)) : null),
    write: (key, value) => storage.set(key, JSON.parse(JSON.stringify(value)) as unknown),
    sessionStart: async () => START,
  };
  return { gateway, storage, store: createBudgetStore(deps) };
}

describe('the budget store', () => {
  it('a session budget: spend since the session began, one notice per threshold, once', async () => {
    const { gateway, storage, store } = setup();
    await store.getState().save(null, { sessionMicros: 1_000_000, confirmAboveMicros: 200_000 });
    expect(store.getState().budget).toMatchObject({ kind: 'session', spentMicros: 0 });
    gateway.spent = 850_000;
    await store.getState().refresh();
    expect(store.getState().notices.map((n) => n.percent)).toEqual([80]);
    store.getState().dismiss(store.getState().notices[0]!.id);
    await store.getState().refresh();
    expect(store.getState().notices).toEqual([]);
    // The studio restarts within the same session (a reload): what was shown stays shown.
    const again = setup(storage);
    again.gateway.spent = 850_000;
    await again.store.getState().refresh();
    expect(again.store.getState().prefs).toEqual({
      sessionMicros: 1_000_000,
      confirmAboveMicros: 200_000,
    });
    expect(again.store.getState().notices).toEqual([]);
    again.gateway.spent = 1_000_000;
    await again.store.getState().refresh();
    expect(again.store.getState().notices.map((n) => n.percent)).toEqual([100]);
  });

  it('holds a running request until its spend has been read, never counting it twice or not at all', async () => {
    const { gateway, store } = setup();
    await store.getState().save(null, { sessionMicros: 1_000_000, confirmAboveMicros: null });
    const release = store.getState().hold(300_000);
    const other = store.getState().hold(200_000);
    expect(store.getState().heldMicros).toBe(500_000);
    // The first request ends and is logged; until the read after it is in, it stays held.
    let letRead: () => void = () => undefined;
    gateway.hold = new Promise((resolve) => (letRead = resolve));
    gateway.spent = 310_000;
    release();
    release(); // twice (a finally and a cancel): released once
    expect(store.getState().heldMicros).toBe(500_000);
    letRead();
    gateway.hold = null;
    await store.getState().refresh();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.getState()).toMatchObject({ sessionSpentMicros: 310_000, heldMicros: 200_000 });
    other();
    await store.getState().refresh();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.getState().heldMicros).toBe(0);
  });

  it('a monthly budget goes to the Studio key, and its gateway alerts become notices', async () => {
    const { gateway, store } = setup();
    await store.getState().save(
      { budgetMicros: 5_000_000, budgetPeriod: 'month' },
      {
        sessionMicros: null,
        confirmAboveMicros: null,
      },
    );
    expect(gateway.patches).toEqual([{ budgetMicros: 5_000_000, budgetPeriod: 'month' }]);
    expect(store.getState().budget).toMatchObject({
      kind: 'key',
      period: 'month',
      budgetMicros: 5_000_000,
    });
    const alert: BudgetAlert = {
      apiKeyId: 'key_studio',
      apiKeyName: 'Studio',
      percent: 50,
      period: 'month',
      budgetMicros: 5_000_000,
      spentMicros: 2_600_000,
      periodStart: Date.UTC(2026, 10, 1),
      resetsAt: Date.UTC(2026, 11, 1),
      at: NOW,
    };
    const reads = gateway.reads;
    store.getState().alert(alert);
    store.getState().alert(alert); // the same event twice (a reconnect): one notice
    expect(store.getState().notices).toHaveLength(1);
    expect(store.getState().notices[0]).toMatchObject({ scope: 'studio', percent: 50 });
    // The studio's own alert reads its key again, for the ring.
    await store.getState().refresh();
    expect(gateway.reads).toBeGreaterThan(reads);
  });

  it('reads once more when asked while a read is under way, so the last read is the latest', async () => {
    const { gateway, store } = setup();
    let release = () => {};
    gateway.hold = new Promise<void>((resolve) => (release = resolve));
    const first = store.getState().refresh();
    const second = store.getState().refresh();
    const third = store.getState().refresh();
    expect(second).toBe(first);
    expect(third).toBe(first);
    gateway.hold = null;
    release();
    await first;
    // One read under way plus exactly one more for the two asked meanwhile.
    expect(gateway.reads).toBe(2);
  });
});
