import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator';
import { accessTokenExpiry, decodeJwtPayload, readIdTokenClaims } from './claims';
import { startLoopbackLogin } from './loopbackLogin';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0, planType: 'plus' });
});
afterAll(() => sim.close());

/** "The browser": the issuer auto-consents and 302s to the loopback callback, which fetch follows. */
async function browse(url: string): Promise<{ status: number; text: string }> {
  const page = await fetch(url);
  return { status: page.status, text: await page.text() };
}

describe('loopback login (authorization code + PKCE)', () => {
  it('signs in end to end and reads who the tokens belong to', async () => {
    let opened = '';
    const login = await startLoopbackLogin({
      issuer: sim.url,
      clientId: 'app_test_client',
      port: 0,
      timeoutMs: 10_000,
      openBrowser: (url) => {
        opened = url;
      },
      extraParams: { login_hint: 'loop@example.com' },
    });
    expect(opened).toBe(login.authorizeUrl);
    expect(login.redirectUri).toMatch(/^http:\/\/localhost:\d+\/auth\/callback$/);
    const authorize = new URL(login.authorizeUrl).searchParams;
    expect(authorize.get('code_challenge_method')).toBe('S256');
    expect(authorize.get('scope')).toContain('offline_access');

    const page = await browse(login.authorizeUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain('You can close this tab');

    const result = await login.result;
    expect(result).toMatchObject({ email: 'loop@example.com', planType: 'plus' });
    expect(result.accountId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.refreshToken).toMatch(/^rt_/);
    expect(result.expiresAt).toBe(accessTokenExpiry(result.accessToken));
    expect(result.expiresAt! - Date.now()).toBeGreaterThan(3500_000);
    const exchange = sim.calls.filter((c) => c.kind === 'oauth.token').at(-1);
    expect(exchange).toMatchObject({ status: 200, accountId: result.accountId });
    // One shot: the port is closed once the login is done.
    await expect(fetch(login.redirectUri)).rejects.toThrow();
  });

  it('ignores a callback with the wrong state, then completes the real one', async () => {
    const login = await startLoopbackLogin({ issuer: sim.url, port: 0, timeoutMs: 10_000 });
    const forged = await fetch(`${login.redirectUri}?state=forged&code=ac_attacker`);
    expect(forged.status).toBe(400);
    expect((await browse(login.authorizeUrl)).status).toBe(200);
    await expect(login.result).resolves.toMatchObject({ planType: 'plus' });
  });

  it('fails with the issuer reason when consent is refused or the exchange fails', async () => {
    const denied = await startLoopbackLogin({ issuer: sim.url, port: 0, timeoutMs: 10_000 });
    const state = new URL(denied.authorizeUrl).searchParams.get('state')!;
    const page = await fetch(
      `${denied.redirectUri}?state=${state}&error=access_denied&error_description=user+said+no`,
    );
    expect(page.status).toBe(400);
    await expect(denied.result).rejects.toThrow(/user said no/);

    sim.faults.add({ kind: 'http_error', status: 500, match: { path: '/oauth/token' } });
    const failing = await startLoopbackLogin({ issuer: sim.url, port: 0, timeoutMs: 10_000 });
    expect((await browse(failing.authorizeUrl)).status).toBe(502);
    await expect(failing.result).rejects.toThrow(/HTTP 500/);
  });

  it('times out, can be cancelled, and says so when the port is taken', async () => {
    const slow = await startLoopbackLogin({ issuer: sim.url, port: 0, timeoutMs: 20 });
    await expect(slow.result).rejects.toThrow(/not completed in time/);

    const first = await startLoopbackLogin({ issuer: sim.url, port: 0, timeoutMs: 10_000 });
    const port = Number(new URL(first.redirectUri).port);
    await expect(startLoopbackLogin({ issuer: sim.url, port, timeoutMs: 10_000 })).rejects.toThrow(
      `port ${port} is in use`,
    );
    first.cancel();
    await expect(first.result).rejects.toThrow(/cancelled/);
  });
});

describe('claims', () => {
  it('reads account, plan and email from the id token, and exp from the access token', () => {
    const tokens = sim.oauth.login({ email: 'claims@example.com', planType: 'team' });
    expect(readIdTokenClaims(tokens.id_token)).toEqual({
      accountId: tokens.account_id,
      planType: 'team',
      email: 'claims@example.com',
    });
    const exp = Number(decodeJwtPayload(tokens.access_token)!.exp);
    expect(accessTokenExpiry(tokens.access_token)).toBe(exp * 1000);
  });

  it('answers nulls for tokens that are not JWTs', () => {
    expect(readIdTokenClaims('opaque-token')).toEqual({
      accountId: null,
      planType: null,
      email: null,
    });
    expect(accessTokenExpiry('a.!!!.b')).toBeNull();
  });
});
