import { create } from 'zustand';
import type { BudgetAlert, KeyView, PatchKeyBody } from '../../shared/admin';
import {
  alertNotice,
  markShown,
  mergeNotices,
  NO_BUDGET_PREFS,
  parseBudgetPrefs,
  sessionNotices,
  studioBudgetOf,
  type BudgetNotice,
  type BudgetPrefs,
  type StudioBudget,
} from '../features/budget/studioBudget';
import { admin } from '../lib/api/admin';
import { readStored, writeStored } from '../lib/storage';

const PREFS_KEY = 'atelier.budget.v1';
const SHOWN_KEY = 'atelier.budgetNotices.v1';

/**
 * The studio budget (features/budget/studioBudget.ts) with what it is measured against: the
 * Studio key as the gateway sees it (its budget and its use now), the Studio key's spend since
 * the session began, the notices due and not yet dismissed.
 */
export interface BudgetState {
  prefs: BudgetPrefs;
  studioKey: KeyView | null;
  sessionStart: number;
  sessionSpentMicros: number;
  /** The estimates of the studio's requests still running (their spend is not logged yet). */
  heldMicros: number;
  /** What the ring shows; null: no budget set. */
  budget: StudioBudget | null;
  notices: BudgetNotice[];
  /** Reads the Studio key and the session's spend again (after a studio request, or on start). */
  refresh: () => Promise<void>;
  /** Saves the person's choice: the Studio key's budget at the gateway, the rest in the studio. */
  save: (keyPatch: PatchKeyBody | null, prefs: BudgetPrefs) => Promise<void>;
  /**
   * Holds a request's estimate while it runs; the returned release (call it once the request has
   * ended, any number of times) lets go of it after the spend has been read again, so the
   * request always counts once: held while it runs, then spent.
   */
  hold: (estimateMicros: number) => () => void;
  /** A gateway `budget` event. */
  alert: (alert: BudgetAlert) => void;
  dismiss: (id: string) => void;
}

export interface BudgetDeps {
  studioKey: () => Promise<KeyView>;
  updateKey: (id: string, patch: PatchKeyBody) => Promise<KeyView>;
  /** The Studio key's spend since `since` (micro-dollars). */
  spentSince: (keyId: string, since: number) => Promise<number>;
  now: () => number;
  read: <T>(key: string, parse: (value: unknown) => T | null) => T | null;
  write: (key: string, value: unknown) => void;
  /**
   * When the studio session began, held by the gateway (GET /api/admin/session): every tab of one
   * login sums its session spend from the same moment (issue 22).
   */
  sessionStart: () => Promise<number>;
}

const parseShown = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null;

export function createBudgetStore(deps: BudgetDeps) {
  /** Shows the notices not shown before in this period (kept across restarts). */
  const announce = (due: BudgetNotice[], current: BudgetNotice[]): BudgetNotice[] => {
    if (due.length === 0) return current;
    const { shown, fresh } = markShown(
      deps.read(SHOWN_KEY, parseShown) ?? [],
      due.map((n) => n.id),
    );
    if (fresh.length === 0) return current;
    deps.write(SHOWN_KEY, shown);
    return mergeNotices(
      current,
      due.filter((n) => fresh.includes(n.id)),
    );
  };
  let refreshing: Promise<void> | null = null;
  let again = false;

  return create<BudgetState>()((set, get) => {
    const recompute = (patch: Partial<BudgetState>) => {
      const next = { ...get(), ...patch };
      const budget = studioBudgetOf(
        next.studioKey,
        next.prefs,
        { start: next.sessionStart, spentMicros: next.sessionSpentMicros },
        deps.now(),
      );
      set({ ...patch, budget, notices: announce(sessionNotices(budget), next.notices) });
    };
    const load = async () => {
      const key = await deps.studioKey();
      // The start never changes within a session: asked once, then kept.
      const sessionStart = get().sessionStart || (await deps.sessionStart());
      const spent = await deps.spentSince(key.id, sessionStart);
      recompute({ studioKey: key, sessionStart, sessionSpentMicros: spent });
    };

    return {
      prefs: deps.read(PREFS_KEY, parseBudgetPrefs) ?? NO_BUDGET_PREFS,
      studioKey: null,
      sessionStart: 0,
      sessionSpentMicros: 0,
      heldMicros: 0,
      budget: null,
      notices: [],
      refresh: () => {
        // One read at a time. A refresh asked for meanwhile (another request was just logged)
        // runs once more after it, so the last read always starts after the last request.
        if (refreshing) {
          again = true;
          return refreshing;
        }
        const run = (): Promise<void> =>
          load()
            .catch(() => undefined)
            .then(() => {
              if (!again) return;
              again = false;
              return run();
            });
        refreshing = run().finally(() => (refreshing = null));
        return refreshing;
      },
      save: async (keyPatch, prefs) => {
        let key = get().studioKey ?? (await deps.studioKey());
        if (keyPatch) key = await deps.updateKey(key.id, keyPatch);
        deps.write(PREFS_KEY, prefs);
        recompute({ prefs, studioKey: key });
      },
      hold: (estimateMicros) => {
        set({ heldMicros: get().heldMicros + estimateMicros });
        let released = false;
        return () => {
          if (released) return;
          released = true;
          void get()
            .refresh()
            .finally(() => set({ heldMicros: get().heldMicros - estimateMicros }));
        };
      },
      alert: (alert) => {
        const notice = alertNotice(alert, get().studioKey?.id ?? null);
        set({ notices: announce([notice], get().notices) });
        if (notice.scope === 'studio') void get().refresh();
      },
      dismiss: (id) => set({ notices: get().notices.filter((n) => n.id !== id) }),
    };
  });
}

export const useBudgetStore = createBudgetStore({
  studioKey: (signal?: AbortSignal) => admin.studioKey(signal),
  updateKey: (id, patch) => admin.updateKey(id, patch),
  spentSince: async (keyId, since) => {
    const rows = await admin.usageTotals({ groupBy: 'key', since, apiKeyId: keyId });
    return rows.find((row) => row.key === keyId)?.costMicros ?? 0;
  },
  now: () => Date.now(),
  read: readStored,
  write: writeStored,
  sessionStart: async () => (await admin.session()).startedAt ?? Date.now(),
});
