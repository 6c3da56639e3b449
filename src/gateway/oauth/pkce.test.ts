import { describe, expect, it } from 'vitest';
import { authorizeUrl } from './client';
import { challengeFor, createPkce, createState } from './pkce';

describe('PKCE', () => {
  it('matches the S256 vector of RFC 7636 appendix B', () => {
    // The RFC's value (also what `openssl dgst -sha256 -binary | base64url` gives).
    expect(challengeFor('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('makes 64-byte base64url verifiers without padding, and fresh state each time', () => {
    const a = createPkce();
    const b = createPkce();
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(Buffer.from(a.verifier, 'base64url')).toHaveLength(64);
    expect(a.challenge).toBe(challengeFor(a.verifier));
    expect(a.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.verifier).not.toBe(a.verifier);
    expect(createState()).not.toBe(createState());
  });

  it('builds the authorize URL with every parameter of the code flow', () => {
    const url = new URL(
      authorizeUrl({
        issuer: 'https://issuer.example/',
        clientId: 'app_x',
        redirectUri: 'http://localhost:1455/auth/callback',
        scope: 'openid offline_access',
        challenge: 'ch',
        state: 'st',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://issuer.example/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'app_x',
      redirect_uri: 'http://localhost:1455/auth/callback',
      scope: 'openid offline_access',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
      state: 'st',
    });
  });
});
