import type { CreateKeyBody, KeyView, PatchKeyBody } from '../../../shared/admin';

/** The key form as typed: every field a string (or flag) until it is sent. */
export interface KeyFormValues {
  name: string;
  group: string;
  /** Empty: no cap of its own. */
  concurrencyLimit: string;
  fallbackLadder: boolean;
}

export type KeyFormErrors = Partial<Record<'name' | 'group' | 'concurrencyLimit', string>>;

export const EMPTY_KEY_FORM: KeyFormValues = {
  name: '',
  group: '',
  concurrencyLimit: '',
  fallbackLadder: false,
};

export function keyFormFrom(key: KeyView): KeyFormValues {
  return {
    name: key.name,
    group: key.group,
    concurrencyLimit: key.concurrencyLimit === null ? '' : String(key.concurrencyLimit),
    fallbackLadder: key.fallbackLadder,
  };
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
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    body: {
      name,
      ...(group ? { group } : {}),
      concurrencyLimit,
      fallbackLadder: values.fallbackLadder,
    },
  };
}
