import { describe, expect, it } from 'vitest';
import type { BudgetAlert } from '../../../shared/admin';
import {
  alertNotice,
  budgetFormFrom,
  budgetLabel,
  budgetPercent,
  budgetPlan,
  budgetTone,
  confirmationQuestion,
  costPerKeptImage,
  markShown,
  mergeNotices,
  money,
  moneyFor,
  needsConfirmation,
  NO_BUDGET_PREFS,
  parseBudgetPrefs,
  reachedPercents,
  SHOWN_NOTICES_KEPT,
  sessionBudgetBlocker,
  sessionNotices,
  studioBudgetOf,
  utcPeriodStart,
  type StudioBudget,
} from './studioBudget';

const NOW = Date.UTC(2026, 10, 24, 21, 30);
const noKeyBudget = {
  budgetMicros: null,
  budgetPeriod: null,
  limitUse: { budgetUsedMicros: null, budgetResetsAt: null, imagesToday: 0, requestsLastMinute: 0 },
};
const monthlyKey = {
  budgetMicros: 5_000_000,
  budgetPeriod: 'month' as const,
  limitUse: {
    budgetUsedMicros: 420_000,
    budgetResetsAt: Date.UTC(2026, 11, 1),
    imagesToday: 3,
    requestsLastMinute: 0,
  },
};
const session = { start: NOW - 60_000, spentMicros: 1_000_000 };
const sessionBudget = (spentMicros: number, budgetMicros = 2_000_000): StudioBudget => ({
  kind: 'session',
  period: 'session',
  budgetMicros,
  spentMicros,
  periodStart: session.start,
});

describe('studioBudgetOf', () => {
  it('takes the Studio key’s budget (the gateway’s, which binds) before the session’s', () => {
    const budget = studioBudgetOf(
      monthlyKey,
      { ...NO_BUDGET_PREFS, sessionMicros: 9 },
      session,
      NOW,
    );
    expect(budget).toEqual({
      kind: 'key',
      period: 'month',
      budgetMicros: 5_000_000,
      spentMicros: 420_000,
      periodStart: Date.UTC(2026, 10, 1),
    });
    expect(budgetLabel(budget!)).toBe('$0.42 of $5.00 this month');
  });

  it('falls back to the session budget, counted from the session’s start, and else to none', () => {
    const budget = studioBudgetOf(
      noKeyBudget,
      { ...NO_BUDGET_PREFS, sessionMicros: 2_000_000 },
      session,
      NOW,
    );
    expect(budget).toEqual(sessionBudget(1_000_000));
    expect(budgetLabel(budget!)).toBe('$1.00 of $2.00 this session');
    expect(studioBudgetOf(noKeyBudget, NO_BUDGET_PREFS, session, NOW)).toBeNull();
    expect(studioBudgetOf(null, NO_BUDGET_PREFS, session, NOW)).toBeNull();
  });

  it('starts UTC periods as the gateway does', () => {
    expect(utcPeriodStart('day', NOW)).toBe(Date.UTC(2026, 10, 24));
    expect(utcPeriodStart('month', NOW)).toBe(Date.UTC(2026, 10, 1));
    expect(utcPeriodStart('total', NOW)).toBe(0);
  });
});

describe('the ring', () => {
  it('says spend in cents, and below a cent in four places so it never reads $0.00', () => {
    expect(money(0)).toBe('$0.00');
    expect(money(420_000)).toBe('$0.42');
    expect(money(4_200)).toBe('$0.0042');
    expect(money(1_200_000)).toBe('$1.20');
  });

  it('gives a budget under a dollar the places it needs, so 82 % never reads as all of it', () => {
    expect(moneyFor(16_400, 20_000)).toBe('$0.0164');
    expect(moneyFor(20_000, 20_000)).toBe('$0.02');
    expect(moneyFor(413_000, 200_000)).toBe('$0.413');
    expect(moneyFor(0, 600_000)).toBe('$0.00');
    expect(moneyFor(420_000, 5_000_000)).toBe('$0.42');
    expect(budgetLabel({ ...sessionBudget(16_400, 20_000), period: 'day' })).toBe(
      '$0.0164 of $0.02 today',
    );
  });

  it('steps its tone at 50, 80 and 100 %', () => {
    expect(
      [0, 999_999, 1_000_000, 1_600_000, 2_000_000, 2_600_000].map((s) =>
        budgetTone(sessionBudget(s)),
      ),
    ).toEqual(['ok', 'ok', 'half', 'warn', 'over', 'over']);
    expect(budgetPercent(sessionBudget(2_600_000))).toBe(130);
  });
});

describe('confirmation and the session budget', () => {
  it('asks only above the threshold, and never without one', () => {
    const prefs = { ...NO_BUDGET_PREFS, confirmAboveMicros: 1_000_000 };
    expect(needsConfirmation(1_000_000, prefs)).toBe(false);
    expect(needsConfirmation(1_000_001, prefs)).toBe(true);
    expect(needsConfirmation(99_000_000, NO_BUDGET_PREFS)).toBe(false);
    expect(needsConfirmation(1, { ...NO_BUDGET_PREFS, confirmAboveMicros: 0 })).toBe(true);
  });

  it('names the request as the person chose it', () => {
    expect(
      confirmationQuestion({ n: 4, size: '3840x2160', quality: 'high', estimateMicros: 1_200_000 }),
    ).toBe('4 x 3840x2160 high, about $1.20: continue?');
  });

  it('refuses what would pass the session budget, and leaves the key budget to the gateway', () => {
    expect(sessionBudgetBlocker(sessionBudget(1_500_000), 500_000)).toBeNull();
    expect(sessionBudgetBlocker(sessionBudget(1_500_000), 500_001)).toMatch(
      /^over the session budget: \$1\.50 of \$2\.00 this session is spent and this request is about \$0\.50/,
    );
    // Requests still running count: $1.50 spent and $0.30 held leave $0.20 of $2.00.
    expect(sessionBudgetBlocker(sessionBudget(1_500_000), 200_000, 300_000)).toBeNull();
    expect(sessionBudgetBlocker(sessionBudget(1_500_000), 200_001, 300_000)).toMatch(
      /is spent, requests still running hold about \$0\.30 and this request is about \$0\.20/,
    );
    const keyBudget = studioBudgetOf(monthlyKey, NO_BUDGET_PREFS, session, NOW);
    expect(sessionBudgetBlocker(keyBudget, 99_000_000)).toBeNull();
    expect(sessionBudgetBlocker(null, 99_000_000)).toBeNull();
  });

  it('gives the cost per kept image, none before one is kept', () => {
    expect(costPerKeptImage(1_200_000, 4)).toBe(300_000);
    expect(costPerKeptImage(1_000_000, 3)).toBe(333_333);
    expect(costPerKeptImage(1_000_000, 0)).toBeNull();
  });
});

describe('notices', () => {
  it('finds the thresholds reached, exactly at the boundary', () => {
    expect(reachedPercents(499, 1_000)).toEqual([]);
    expect(reachedPercents(500, 1_000)).toEqual([50]);
    expect(reachedPercents(800, 1_000)).toEqual([50, 80]);
    expect(reachedPercents(1_500, 1_000)).toEqual([50, 80, 100]);
  });

  it('has one notice per threshold and session, shown once', () => {
    const due = sessionNotices(sessionBudget(1_700_000));
    expect(due.map((n) => n.percent)).toEqual([50, 80]);
    expect(due[1]!.text).toBe('The studio passed 80 % of its budget: $1.70 of $2.00 this session.');
    const first = markShown(
      [],
      due.map((n) => n.id),
    );
    expect(first.fresh).toHaveLength(2);
    // The next refresh finds the same thresholds (and a new one): only the new one is fresh.
    const next = markShown(
      first.shown,
      sessionNotices(sessionBudget(2_000_000)).map((n) => n.id),
    );
    expect(next.fresh).toEqual([`session:${session.start}:100`]);
    // A new session (another start) announces again.
    const restarted = { ...sessionBudget(1_000_000), periodStart: session.start + 1 };
    expect(
      markShown(
        next.shown,
        sessionNotices(restarted).map((n) => n.id),
      ).fresh,
    ).toHaveLength(1);
    expect(sessionNotices(studioBudgetOf(monthlyKey, NO_BUDGET_PREFS, session, NOW))).toEqual([]);
  });

  it('shows one notice per budget and period, the highest threshold passed', () => {
    const due = sessionNotices(sessionBudget(2_000_000));
    expect(mergeNotices([], due).map((n) => n.percent)).toEqual([100]);
    const other = { id: 'key_b:0:50', scope: 'key' as const, percent: 50 as const, text: 'b' };
    const fifty = due[0]!;
    // A higher one replaces the lower one on screen; a lower one after a higher is not shown.
    expect(mergeNotices([fifty, other], [due[1]!]).map((n) => n.id)).toEqual([
      other.id,
      due[1]!.id,
    ]);
    expect(mergeNotices([due[1]!], [fifty]).map((n) => n.id)).toEqual([due[1]!.id]);
  });

  it('keeps a bounded list of shown notices', () => {
    const ids = Array.from({ length: SHOWN_NOTICES_KEPT + 50 }, (_, i) => `k:${i}:50`);
    const { shown, fresh } = markShown([], ids);
    expect(fresh).toHaveLength(ids.length);
    expect(shown).toHaveLength(SHOWN_NOTICES_KEPT);
    expect(shown.at(-1)).toBe(ids.at(-1));
  });

  it('words a gateway alert for the studio’s key and for another key', () => {
    const alert: BudgetAlert = {
      apiKeyId: 'key_studio',
      apiKeyName: 'Studio',
      percent: 80,
      period: 'month',
      budgetMicros: 5_000_000,
      spentMicros: 4_100_000,
      periodStart: Date.UTC(2026, 10, 1),
      resetsAt: Date.UTC(2026, 11, 1),
      at: NOW,
    };
    expect(alertNotice(alert, 'key_studio')).toEqual({
      id: `key_studio:${Date.UTC(2026, 10, 1)}:80`,
      scope: 'studio',
      percent: 80,
      text: 'The studio passed 80 % of its budget: $4.10 of $5.00 this month.',
    });
    const other = alertNotice(
      { ...alert, apiKeyId: 'key_app', apiKeyName: 'Blender' },
      'key_studio',
    );
    expect(other.scope).toBe('key');
    expect(other.text).toBe('Key “Blender” passed 80 % of its budget: $4.10 of $5.00 this month.');
  });
});

describe('stored prefs', () => {
  it('reads what it wrote and drops what it does not know', () => {
    expect(parseBudgetPrefs({ sessionMicros: 5_000_000, confirmAboveMicros: 500_000 })).toEqual({
      sessionMicros: 5_000_000,
      confirmAboveMicros: 500_000,
    });
    expect(parseBudgetPrefs({ sessionMicros: -1, confirmAboveMicros: 'x' })).toEqual(
      NO_BUDGET_PREFS,
    );
    expect(parseBudgetPrefs('nonsense')).toBeNull();
  });
});

describe('the settings form', () => {
  const none = { budgetMicros: null, budgetPeriod: null };
  it('sets a monthly budget on the Studio key and clears the session one', () => {
    const plan = budgetPlan({ choice: 'month', amount: '5', confirmAbove: '0.50' }, none);
    expect(plan).toEqual({
      ok: true,
      keyPatch: { budgetMicros: 5_000_000, budgetPeriod: 'month' },
      prefs: { sessionMicros: null, confirmAboveMicros: 500_000 },
    });
    // Saving the same again changes nothing on the key.
    const same = budgetPlan({ choice: 'month', amount: '5.00', confirmAbove: '' }, monthlyKey);
    expect(same).toMatchObject({ ok: true, keyPatch: null });
  });

  it('moves to a session budget by clearing the key’s, and to none by clearing both', () => {
    expect(budgetPlan({ choice: 'session', amount: '2', confirmAbove: '' }, monthlyKey)).toEqual({
      ok: true,
      keyPatch: { budgetMicros: null },
      prefs: { sessionMicros: 2_000_000, confirmAboveMicros: null },
    });
    expect(budgetPlan({ choice: 'none', amount: 'ignored', confirmAbove: '' }, none)).toEqual({
      ok: true,
      keyPatch: null,
      prefs: NO_BUDGET_PREFS,
    });
  });

  it('names the field at fault', () => {
    expect(budgetPlan({ choice: 'month', amount: '0', confirmAbove: 'lots' }, none)).toEqual({
      ok: false,
      errors: {
        amount: 'Dollars above zero, e.g. 5 or 12.50',
        confirmAbove: 'Dollars, e.g. 0.50, or empty',
      },
    });
  });

  it('fills itself from what is set', () => {
    expect(
      budgetFormFrom(monthlyKey, { sessionMicros: null, confirmAboveMicros: 1_000_000 }),
    ).toEqual({
      choice: 'month',
      amount: '5',
      confirmAbove: '1',
    });
    expect(budgetFormFrom(none, { sessionMicros: 2_500_000, confirmAboveMicros: null })).toEqual({
      choice: 'session',
      amount: '2.5',
      confirmAbove: '',
    });
  });
});
