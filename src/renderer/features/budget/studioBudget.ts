import type { BudgetAlert, KeyView, PatchKeyBody } from '../../../shared/admin';
import { dollarsToMicros } from '../../../shared/costEstimate';

/**
 * The studio budget (issue 15, item 2) as plain functions: what the sidebar ring shows, when a
 * request needs a confirmation or is over a session budget, which notices are due, and what the
 * settings form saves. The components and the store only wire these to the gateway.
 *
 * Two kinds of budget:
 * - a budget on the built-in Studio key (monthly from the settings form; any period set on the
 *   Keys page is shown as it is): the gateway enforces it as it does for any key, before the
 *   upstream call, across restarts;
 * - a session budget, kept by the studio: the gateway has no notion of the studio's session, so
 *   the studio counts the Studio key's spend since it started and refuses to send what would pass
 *   it. It resets when the studio restarts, which is what "this session" means to a person.
 */

export const BUDGET_PERCENTS = [50, 80, 100] as const;
export type BudgetPercent = (typeof BUDGET_PERCENTS)[number];

/** What the person set in the studio (kept in localStorage, as the studio's other preferences). */
export interface BudgetPrefs {
  /** The session budget in micro-dollars; null: none. */
  sessionMicros: number | null;
  /** Ask before sending a request estimated above this (micro-dollars); null: never ask. */
  confirmAboveMicros: number | null;
}

export const NO_BUDGET_PREFS: BudgetPrefs = { sessionMicros: null, confirmAboveMicros: null };

const amount = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;

/** Stored prefs back, or null for anything an older or other studio left there. */
export function parseBudgetPrefs(value: unknown): BudgetPrefs | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const session = amount(v.sessionMicros);
  return {
    sessionMicros: session !== null && session > 0 ? session : null,
    confirmAboveMicros: amount(v.confirmAboveMicros),
  };
}

export type BudgetPeriodName = 'day' | 'month' | 'total' | 'session';

/** The budget the ring shows and the notices watch. */
export interface StudioBudget {
  /** 'key': the Studio key's own, enforced by the gateway; 'session': the studio's. */
  kind: 'key' | 'session';
  period: BudgetPeriodName;
  budgetMicros: number;
  spentMicros: number;
  /** When the current period began: notices are once per threshold and period. */
  periodStart: number;
}

/** Start of the UTC day or month holding `now` (the gateway's periods are UTC too). */
export function utcPeriodStart(period: 'day' | 'month' | 'total', now: number): number {
  const at = new Date(now);
  if (period === 'total') return 0;
  if (period === 'month') return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
}

/**
 * The studio's budget: the Studio key's when it has one (the gateway's is the one that binds),
 * else the session budget, else none.
 */
export function studioBudgetOf(
  key: Pick<KeyView, 'budgetMicros' | 'budgetPeriod' | 'limitUse'> | null,
  prefs: BudgetPrefs,
  session: { start: number; spentMicros: number },
  now: number,
): StudioBudget | null {
  if (key && key.budgetMicros !== null && key.budgetPeriod !== null) {
    return {
      kind: 'key',
      period: key.budgetPeriod,
      budgetMicros: key.budgetMicros,
      spentMicros: key.limitUse.budgetUsedMicros ?? 0,
      periodStart: utcPeriodStart(key.budgetPeriod, now),
    };
  }
  if (prefs.sessionMicros !== null) {
    return {
      kind: 'session',
      period: 'session',
      budgetMicros: prefs.sessionMicros,
      spentMicros: session.spentMicros,
      periodStart: session.start,
    };
  }
  return null;
}

const PERIOD_WORDS: Record<BudgetPeriodName, string> = {
  day: 'today',
  month: 'this month',
  total: 'in total',
  session: 'this session',
};

/** Dollars as people read a budget: cents, or four places below a cent so spend never shows $0.00. */
export function money(micros: number): string {
  const dollars = micros / 1_000_000;
  if (micros === 0 || Math.abs(dollars) >= 0.01) return `$${dollars.toFixed(2)}`;
  return `$${dollars.toFixed(4)}`;
}

/**
 * Dollars at the precision a budget needs: cents for a budget of a dollar or more, up to four
 * places under that (trailing zeros after the cents dropped), so $0.0164 of a $0.02 budget does
 * not read as all of it.
 */
export function moneyFor(micros: number, budgetMicros: number): string {
  if (budgetMicros >= 1_000_000) return `$${(micros / 1_000_000).toFixed(2)}`;
  const text = (micros / 1_000_000).toFixed(4);
  return `$${text.replace(/(\.\d\d\d?)0+$/, '$1').replace(/(\.\d\d)0$/, '$1')}`;
}

/** "$0.42 of $5.00 this month" */
export function budgetLabel(budget: StudioBudget): string {
  const { spentMicros, budgetMicros } = budget;
  return `${moneyFor(spentMicros, budgetMicros)} of ${moneyFor(budgetMicros, budgetMicros)} ${PERIOD_WORDS[budget.period]}`;
}

/** Whole percent of the budget spent (may pass 100: a request's real cost can beat its estimate). */
export function budgetPercent(budget: StudioBudget): number {
  return Math.floor((budget.spentMicros / budget.budgetMicros) * 100);
}

/** The ring's colour step: calm below 50 %, then 50, 80 and 100 %. */
export function budgetTone(budget: StudioBudget): 'ok' | 'half' | 'warn' | 'over' {
  const percent = budgetPercent(budget);
  if (percent >= 100) return 'over';
  if (percent >= 80) return 'warn';
  if (percent >= 50) return 'half';
  return 'ok';
}

/** What a request asks for, as the confirmation names it. */
export interface SpendSummary {
  n: number;
  /** `3840x2160`, or `auto`. */
  size: string;
  quality: string;
  estimateMicros: number;
}

/** Whether a request's estimate is above the threshold the person set. */
export function needsConfirmation(estimateMicros: number, prefs: BudgetPrefs): boolean {
  return prefs.confirmAboveMicros !== null && estimateMicros > prefs.confirmAboveMicros;
}

/** "4 x 3840x2160 high, about $1.20: continue?" */
export function confirmationQuestion(request: SpendSummary): string {
  return `${request.n} x ${request.size} ${request.quality}, about ${money(request.estimateMicros)}: continue?`;
}

/**
 * Why a request may not be sent under a session budget (null: it may). `heldMicros` is what the
 * studio's requests still running are estimated to cost: their spend is not in the log yet, and
 * a request sent from Edit while Generate runs must not pass the budget between them. The Studio
 * key's own budget is the gateway's to enforce: its 429 names the limit, the use and the reset.
 */
export function sessionBudgetBlocker(
  budget: StudioBudget | null,
  estimateMicros: number,
  heldMicros = 0,
): string | null {
  if (!budget || budget.kind !== 'session') return null;
  if (budget.spentMicros + heldMicros + estimateMicros <= budget.budgetMicros) return null;
  const running = heldMicros > 0 ? `, requests still running hold about ${money(heldMicros)}` : '';
  return (
    `over the session budget: ${budgetLabel(budget)} is spent${running} and this request is ` +
    `about ${money(estimateMicros)} (raise it in Settings, or restart the studio for a new session)`
  );
}

/** The thresholds a budget's spend has reached. */
export function reachedPercents(spentMicros: number, budgetMicros: number): BudgetPercent[] {
  return BUDGET_PERCENTS.filter((percent) => spentMicros * 100 >= budgetMicros * percent);
}

/** A notice shown in the studio when a budget passes a threshold. */
export interface BudgetNotice {
  /** Who and which period and threshold: the same notice is never shown twice. */
  id: string;
  scope: 'studio' | 'key';
  percent: BudgetPercent;
  text: string;
}

export function noticeId(scope: string, periodStart: number, percent: number): string {
  return `${noticeGroup(scope, periodStart)}:${percent}`;
}

/** Whose budget and which period a notice is about (its id without the threshold). */
export function noticeGroup(scope: string, periodStart: number): string {
  return `${scope}:${periodStart}`;
}

const groupOf = (id: string) => id.slice(0, id.lastIndexOf(':'));

/**
 * The notices to show once `fresh` ones are due: one per budget and period, the highest
 * threshold passed (a request that passes 50 and 80 % at once says 80 %, and an 80 % notice
 * replaces the 50 % one still on screen).
 */
export function mergeNotices(
  current: readonly BudgetNotice[],
  fresh: readonly BudgetNotice[],
): BudgetNotice[] {
  let next = [...current];
  for (const notice of fresh) {
    const group = groupOf(notice.id);
    const shown = next.find((n) => groupOf(n.id) === group);
    if (shown && shown.percent >= notice.percent) continue;
    next = [...next.filter((n) => groupOf(n.id) !== group), notice];
  }
  return next;
}

/** The notices due for the studio's session budget (the key budgets come as gateway events). */
export function sessionNotices(budget: StudioBudget | null): BudgetNotice[] {
  if (!budget || budget.kind !== 'session') return [];
  return reachedPercents(budget.spentMicros, budget.budgetMicros).map((percent) => ({
    id: noticeId('session', budget.periodStart, percent),
    scope: 'studio',
    percent,
    text: `The studio passed ${percent} % of its budget: ${budgetLabel(budget)}.`,
  }));
}

/** A gateway `budget` event as a notice: the Studio key's is the studio's own budget. */
export function alertNotice(alert: BudgetAlert, studioKeyId: string | null): BudgetNotice {
  const spent = budgetLabel({
    kind: 'key',
    period: alert.period,
    budgetMicros: alert.budgetMicros,
    spentMicros: alert.spentMicros,
    periodStart: alert.periodStart,
  });
  const studio = alert.apiKeyId === studioKeyId;
  const who = studio ? 'The studio' : `Key “${alert.apiKeyName ?? alert.apiKeyId}”`;
  return {
    id: noticeId(alert.apiKeyId, alert.periodStart, alert.percent),
    scope: studio ? 'studio' : 'key',
    percent: alert.percent,
    text: `${who} passed ${alert.percent} % of its budget: ${spent}.`,
  };
}

/** Notice ids already shown, newest last, kept to a bound (a period's ids are never needed again). */
export const SHOWN_NOTICES_KEPT = 200;

/** `shown` with `ids` added (at most SHOWN_NOTICES_KEPT), and which of `ids` are new. */
export function markShown(
  shown: readonly string[],
  ids: readonly string[],
): { shown: string[]; fresh: string[] } {
  const seen = new Set(shown);
  const fresh = ids.filter((id) => {
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return { shown: [...shown, ...fresh].slice(-SHOWN_NOTICES_KEPT), fresh };
}

/** A run's cost per image it kept (null while none is kept). */
export function costPerKeptImage(costMicros: number, kept: number): number | null {
  return kept > 0 ? Math.round(costMicros / kept) : null;
}

// --- the settings form -------------------------------------------------------------------------

export type BudgetChoice = 'none' | 'session' | 'month';

export interface BudgetForm {
  choice: BudgetChoice;
  /** Dollars, as typed. */
  amount: string;
  /** Dollars, as typed; empty: never ask. */
  confirmAbove: string;
}

export type BudgetFormErrors = Partial<Record<'amount' | 'confirmAbove', string>>;

const dollarsText = (micros: number) => String(micros / 1_000_000);

export function budgetFormFrom(
  key: Pick<KeyView, 'budgetMicros' | 'budgetPeriod'> | null,
  prefs: BudgetPrefs,
): BudgetForm {
  const confirmAbove =
    prefs.confirmAboveMicros === null ? '' : dollarsText(prefs.confirmAboveMicros);
  if (key?.budgetMicros != null)
    return { choice: 'month', amount: dollarsText(key.budgetMicros), confirmAbove };
  if (prefs.sessionMicros !== null)
    return { choice: 'session', amount: dollarsText(prefs.sessionMicros), confirmAbove };
  return { choice: 'none', amount: '', confirmAbove };
}

/** What saving the form does: the Studio key's change (null: none) and the studio's prefs. */
export type BudgetPlan =
  | { ok: true; keyPatch: PatchKeyBody | null; prefs: BudgetPrefs }
  | { ok: false; errors: BudgetFormErrors };

export function budgetPlan(
  form: BudgetForm,
  key: Pick<KeyView, 'budgetMicros' | 'budgetPeriod'>,
): BudgetPlan {
  const errors: BudgetFormErrors = {};
  let amountMicros: number | null = null;
  if (form.choice !== 'none') {
    amountMicros = dollarsToMicros(form.amount);
    if (amountMicros === null || amountMicros <= 0) {
      errors.amount = 'Dollars above zero, e.g. 5 or 12.50';
      amountMicros = null;
    }
  }
  let confirmAboveMicros: number | null = null;
  if (form.confirmAbove.trim()) {
    confirmAboveMicros = dollarsToMicros(form.confirmAbove);
    if (confirmAboveMicros === null) errors.confirmAbove = 'Dollars, e.g. 0.50, or empty';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const monthly = form.choice === 'month' ? amountMicros : null;
  const keyPatch: PatchKeyBody | null =
    monthly === null
      ? key.budgetMicros === null
        ? null
        : { budgetMicros: null }
      : monthly === key.budgetMicros && key.budgetPeriod === 'month'
        ? null
        : { budgetMicros: monthly, budgetPeriod: 'month' };
  return {
    ok: true,
    keyPatch,
    prefs: {
      sessionMicros: form.choice === 'session' ? amountMicros : null,
      confirmAboveMicros,
    },
  };
}
