import { describe, expect, it } from 'vitest';
import { checkAccountForm, EMPTY_ACCOUNT_FORM } from './accountForm';

describe('checkAccountForm', () => {
  it('asks for a name, a base URL and the key of an API-key account', () => {
    const result = checkAccountForm('api_key', { ...EMPTY_ACCOUNT_FORM, baseUrl: 'ftp://x' });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(Object.keys(result.errors).sort()).toEqual(['apiKey', 'baseUrl', 'name']);
  });

  it('builds the body of each kind with only the fields filled in', () => {
    const values = {
      ...EMPTY_ACCOUNT_FORM,
      name: ' work ',
      capacity: '8',
      baseUrl: 'https://api.example.com/v1',
      apiKey: ' sk-1 ',
    };
    expect(checkAccountForm('api_key', values)).toEqual({
      ok: true,
      request: {
        kind: 'create',
        body: {
          kind: 'api_key',
          name: 'work',
          capacity: 8,
          baseUrl: 'https://api.example.com/v1',
          apiKey: 'sk-1',
        },
      },
    });
    expect(checkAccountForm('simulator', { ...values, tier: 'pro' })).toEqual({
      ok: true,
      request: {
        kind: 'create',
        body: { kind: 'simulator', name: 'work', capacity: 8, tier: 'pro' },
      },
    });
    expect(checkAccountForm('login', { ...values, baseUrl: '' })).toEqual({
      ok: true,
      request: { kind: 'login', body: { name: 'work', capacity: 8 } },
    });
  });

  it('refuses a capacity out of range', () => {
    const result = checkAccountForm('simulator', {
      ...EMPTY_ACCOUNT_FORM,
      name: 'a',
      capacity: '0',
    });
    expect(result.ok).toBe(false);
  });
});
