import type { CreateKeyBody, KeyView, PatchKeyBody } from '../../../shared/admin';
import { dollarsToMicros } from '../../../shared/costEstimate';

export type BudgetPeriodChoice = 'day' | 'month' | 'total';

/** The key form as typed: every field a string (or flag) until it is sent. */
export interface KeyFormValues {
  name: string;
  group: string;
  /** Empty: no cap of its own. */
  concurrencyLimit: string;
  fallbackLadder: boolean;
  /** Dollars, such as "5" or "12.50"; empty: no budget. */
  budget: string;
  budgetPeriod: BudgetPeriodChoice;
  /** Empty: no limit. */
  rpmLimit: string;
  imagesPerDay: string;
  /** `YYYY-MM-DD`, the UTC day the key stops working; empty: never. */
  expires: string;
}

export const KEY_FORM_FIELDS = [
  'name',
  'group',
  'concurrencyLimit',
  'budget',
  'rpmLimit',
  'imagesPerDay',
  'expires',
] as const;
export type KeyFormErrors = Partial<Record<(typeof KEY_FORM_FIELDS)[number], string>>;

export const EMPTY_KEY_FORM: KeyFormValues = {
  name: '',
  group: '',
  concurrencyLimit: '',
  fallbackLadder: false,
  budget: '',
  budgetPeriod: 'month',
  rpmLimit: '',
  imagesPerDay: '',
  expires: '',
};

export function keyFormFrom(key: KeyView): KeyFormValues {
  return {
    name: key.name,
    group: key.group,
    concurrencyLimit: key.concurrencyLimit === null ? '' : String(key.concurrencyLimit),
    fallbackLadder: key.fallbackLadder,
    budget: key.budgetMicros === null ? '' : microsToDollars(key.budgetMicros),
    budgetPeriod: key.budgetPeriod ?? 'month',
    rpmLimit: key.rpmLimit === null ? '' : String(key.rpmLimit),
    imagesPerDay: key.imagesPerDay === null ? '' : String(key.imagesPerDay),
    expires: key.expiresAt === null ? '' : new Date(key.expiresAt).toISOString().slice(0, 10),
  };
}

/** 12_500_000 -> "12.5": what a person typed, without trailing zeros. */
function microsToDollars(micros: number): string {
  const whole = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** A whole-number limit field: null when empty, undefined (and an error) when malformed. */
function countField(text: string): number | null | undefined {
  const value = text.trim();
  if (!value) return null;
  return /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 1_000_000
    ? Number(value)
    : undefined;
}

/** `YYYY-MM-DD` as the start of that UTC day, null when empty, undefined when not a real date. */
function expiryField(text: string): number | null | undefined {
  const value = text.trim();
  if (!value) return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(ms).toISOString().startsWith(value) ? ms : undefined;
}

/** What the form would send, or the messages of the fields that stop it (the API checks again). */
export function checkKeyForm(
  values: KeyFormValues,
): { ok: true; body: CreateKeyBody & PatchKeyBody } | { ok: false; errors: KeyFormErrors } {
  const errors: KeyFormErrors = {};
  const name = values.name.trim();
  const group = values.group.trim();
  if (!name) errors.name = 'Give the key a name, such as the app that will use it';
  else if (name.length > 100) errors.name = 'At most 100 characters';
  if (group.length > 100) errors.group = 'At most 100 characters';
  let concurrencyLimit: number | null = null;
  const cap = values.concurrencyLimit.trim();
  if (cap) {
    const n = Number(cap);
    if (!/^\d+$/.test(cap) || n < 1 || n > 1000) {
      errors.concurrencyLimit = 'A whole number from 1 to 1000, or empty for no cap';
    } else concurrencyLimit = n;
  }
  let budgetMicros: number | null = null;
  const budget = values.budget.trim().replace(/^\$/, '');
  if (budget) {
    const micros = dollarsToMicros(budget);
    if (micros === null || micros <= 0)
      errors.budget = 'Dollars above zero, such as 5 or 12.50, or empty for no budget';
    else budgetMicros = micros;
  }
  const rpmLimit = countField(values.rpmLimit);
  if (rpmLimit === undefined) errors.rpmLimit = 'A whole number from 1, or empty for no limit';
  const imagesPerDay = countField(values.imagesPerDay);
  if (imagesPerDay === undefined)
    errors.imagesPerDay = 'A whole number from 1, or empty for no limit';
  const expiresAt = expiryField(values.expires);
  if (expiresAt === undefined) errors.expires = 'A date as YYYY-MM-DD, or empty for never';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    body: {
      name,
      ...(group ? { group } : {}),
      concurrencyLimit,
      fallbackLadder: values.fallbackLadder,
      budgetMicros,
      budgetPeriod: budgetMicros === null ? null : values.budgetPeriod,
      rpmLimit: rpmLimit ?? null,
      imagesPerDay: imagesPerDay ?? null,
      expiresAt: expiresAt ?? null,
    },
  };
}
