import type { AccountLoginBody, CreateAccountBody } from '../../../shared/admin';

export type AddKind = 'api_key' | 'simulator' | 'login';

/** The add-account form as typed. The API key lives here only until it is sent. */
export interface AccountFormValues {
  name: string;
  tier: string;
  group: string;
  capacity: string;
  baseUrl: string;
  apiKey: string;
  issuer: string;
}

export const EMPTY_ACCOUNT_FORM: AccountFormValues = {
  name: '',
  tier: '',
  group: '',
  capacity: '',
  baseUrl: '',
  apiKey: '',
  issuer: '',
};

export type AccountFormField = keyof AccountFormValues;

/** Adding an account is one call; signing in starts a browser flow. */
export type AccountRequest =
  { kind: 'create'; body: CreateAccountBody } | { kind: 'login'; body: AccountLoginBody };
export type AccountFormErrors = Partial<Record<AccountFormField, string>>;

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

/** The body to send for `kind`, or the fields to fix first (the API checks everything again). */
export function checkAccountForm(
  kind: AddKind,
  v: AccountFormValues,
): { ok: true; request: AccountRequest } | { ok: false; errors: AccountFormErrors } {
  const errors: AccountFormErrors = {};
  const name = v.name.trim();
  if (!name) errors.name = 'Name the account, e.g. "work" or "team plan"';
  let capacity: number | undefined;
  if (v.capacity.trim()) {
    const n = Number(v.capacity.trim());
    if (!Number.isInteger(n) || n < 1 || n > 1000)
      errors.capacity = 'A whole number from 1 to 1000, or empty for the default';
    else capacity = n;
  }
  const common = {
    name,
    ...(v.group.trim() ? { group: v.group.trim() } : {}),
    ...(capacity !== undefined ? { capacity } : {}),
  };
  const tier = v.tier.trim() ? { tier: v.tier.trim() } : {};
  if (kind === 'api_key') {
    if (!isHttpUrl(v.baseUrl.trim()))
      errors.baseUrl = 'The provider’s base URL, e.g. https://api.example.com/v1';
    if (!v.apiKey.trim()) errors.apiKey = 'Paste the provider’s API key';
  }
  if (kind === 'login') {
    if (v.issuer.trim() && !isHttpUrl(v.issuer.trim()))
      errors.issuer = 'An http(s) URL, or empty for the default sign-in';
    if (v.baseUrl.trim() && !isHttpUrl(v.baseUrl.trim()))
      errors.baseUrl = 'An http(s) URL, or empty for the default';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  if (kind === 'api_key') {
    const body: CreateAccountBody = {
      kind: 'api_key',
      ...common,
      ...tier,
      baseUrl: v.baseUrl.trim(),
      apiKey: v.apiKey.trim(),
    };
    return { ok: true, request: { kind: 'create', body } };
  }
  if (kind === 'simulator') {
    return {
      ok: true,
      request: { kind: 'create', body: { kind: 'simulator', ...common, ...tier } },
    };
  }
  const body: AccountLoginBody = {
    ...common,
    ...(v.issuer.trim() ? { issuer: v.issuer.trim() } : {}),
    ...(v.baseUrl.trim() ? { baseUrl: v.baseUrl.trim() } : {}),
  };
  return { ok: true, request: { kind: 'login', body } };
}
