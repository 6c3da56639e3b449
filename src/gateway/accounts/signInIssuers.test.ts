import { describe, expect, it } from 'vitest';
import { DEFAULT_ISSUER } from '../oauth/constants';
import { signInIssuers } from './signInIssuers';

describe('signInIssuers', () => {
  it('is the provider, each account’s issuer and the simulator, as origins, once each', () => {
    const issuers = signInIssuers(
      [
        { issuer: 'https://sso.example.com/tenant/a' },
        { issuer: 'https://sso.example.com/tenant/b' },
        { issuer: null }, // an API-key account
        { issuer: 'not a url' },
      ],
      'http://127.0.0.1:41234',
    );
    expect(issuers).toEqual([
      new URL(DEFAULT_ISSUER).origin,
      'http://127.0.0.1:41234',
      'https://sso.example.com',
    ]);
  });

  it('is only the provider without accounts or simulator', () => {
    expect(signInIssuers([], null)).toEqual([new URL(DEFAULT_ISSUER).origin]);
  });
});
