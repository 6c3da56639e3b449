import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator';
import { UpstreamError } from '../core/upstreamError';
import { accessTokenExpiry } from './claims';
import { OAuthError, refreshTokens } from './client';
import { createTokenManager } from './tokenManager';
import { memorySecretStore } from './testing';

// The SecretStore here is in memory: the real keychain is tested in src/gateway/secrets.

const CLIENT_ID = 'app_test_client';
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
});
afterAll(() => sim.close());

const tokenCalls = () => sim.calls.filter((call) => call.kind === 'oauth.token').length;

function signedIn(opts: { expiresAt?: number | null; now?: () => number } = {}) {
  const tokens = sim.oauth.login({ clientId: CLIENT_ID });
  const secret = {
    type: 'oauth',
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    idToken: tokens.id_token,
    expiresAt:
      opts.expiresAt === undefined ? accessTokenExpiry(tokens.access_token) : opts.expiresAt,
  };
  const store = memorySecretStore({ 'oauth:main': JSON.stringify(secret) });
  const failures: string[] = [];
  const manager = createTokenManager({
    account: { id: 'acc_1', name: 'main', issuer: sim.url, secretName: 'oauth:main' },
    secrets: store,
    clientId: CLIENT_ID,
    now: opts.now,
    onPermanentFailure: (reason) => failures.push(reason),
  });
  const stored = () => JSON.parse(store.values.get('oauth:main')!) as typeof secret;
  return { tokens, store, failures, manager, stored };
}

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError['failure']> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return (error as UpstreamError).failure;
}

describe('token manager', () => {
  it('uses the stored token while fresh and refreshes within 5 minutes of exp, persisting the rotation', async () => {
    const fresh = signedIn();
    const before = tokenCalls();
    expect(await fresh.manager.accessToken()).toBe(fresh.tokens.access_token);
    expect(tokenCalls()).toBe(before);

    // 56 minutes later the 60-minute token is inside the 5-minute margin.
    const later = signedIn({ now: () => Date.now() + 56 * 60_000 });
    const token = await later.manager.accessToken();
    expect(token).not.toBe(later.tokens.access_token);
    expect(tokenCalls()).toBe(before + 1);
    const stored = later.stored();
    expect(stored.accessToken).toBe(token);
    expect(stored.refreshToken).not.toBe(later.tokens.refresh_token);
    expect(stored.expiresAt).toBe(accessTokenExpiry(token));
    expect(later.store.writes).toBe(1);
    // Why the write matters: the old refresh token is spent for good.
    const reuse = await refreshTokens({
      issuer: sim.url,
      clientId: CLIENT_ID,
      refreshToken: later.tokens.refresh_token,
    }).catch((e: unknown) => e);
    expect(reuse).toBeInstanceOf(OAuthError);
    expect(reuse).toMatchObject({ permanent: true, code: 'refresh_token_reused', status: 401 });
  });

  it('shares one in-flight refresh among concurrent callers', async () => {
    const { manager } = signedIn({ expiresAt: Date.now() - 1000 });
    const before = tokenCalls();
    const tokens = await Promise.all([
      ...Array.from({ length: 6 }, () => manager.accessToken()),
      manager.forceRefresh(),
    ]);
    expect(new Set(tokens).size).toBe(1);
    expect(tokenCalls()).toBe(before + 1);
  });

  it('does not refresh again for a 401 on a token that was already replaced', async () => {
    const { manager, tokens } = signedIn();
    const before = tokenCalls();
    const renewed = await manager.forceRefresh(tokens.access_token);
    expect(await manager.forceRefresh(tokens.access_token)).toBe(renewed);
    expect(tokenCalls()).toBe(before + 1);
    expect(await manager.forceRefresh(renewed)).not.toBe(renewed);
    expect(tokenCalls()).toBe(before + 2);
  });

  it('keeps the old refresh token when the issuer sends none back', async () => {
    // The simulator always rotates; this fetch passes the real exchange through and drops the
    // new refresh token from the answer, as a non-rotating issuer would send it.
    const nonRotating: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const { refresh_token: _dropped, ...body } = (await response.json()) as Record<
        string,
        unknown
      >;
      return new Response(JSON.stringify(body), { status: response.status });
    };
    const tokens = sim.oauth.login({ clientId: CLIENT_ID });
    const result = await refreshTokens({
      issuer: sim.url,
      clientId: CLIENT_ID,
      refreshToken: tokens.refresh_token,
      fetchImpl: nonRotating,
    });
    expect(result.refreshToken).toBe(tokens.refresh_token);
    expect(result.rotated).toBe(false);
    expect(result.accessToken).not.toBe(tokens.access_token);
    expect(result.idToken).toMatch(/\./);
  });

  it('reports a permanent failure once, stops calling the issuer, and picks up a new sign-in', async () => {
    const { manager, tokens, failures, store } = signedIn({ expiresAt: Date.now() - 1000 });
    sim.oauth.setRefreshTokenState(tokens.refresh_token, 'expired');
    const failure = await failureOf(manager.accessToken());
    expect(failure.kind).toBe('unauthorized');
    expect(failure.message).toMatch(/refresh_token_expired/);
    expect(failures).toEqual([failure.message]);
    expect(failures[0]).toContain("Sign in to account 'main' again");

    const before = tokenCalls();
    expect((await failureOf(manager.accessToken())).kind).toBe('unauthorized');
    expect(tokenCalls()).toBe(before);
    expect(failures).toHaveLength(1);

    // `accounts login` stores fresh tokens while the gateway runs.
    const again = sim.oauth.login({ clientId: CLIENT_ID });
    await store.set(
      'oauth:main',
      JSON.stringify({
        type: 'oauth',
        accessToken: again.access_token,
        refreshToken: again.refresh_token,
        idToken: again.id_token,
        expiresAt: accessTokenExpiry(again.access_token),
      }),
    );
    expect(await manager.accessToken()).toBe(again.access_token);
  });

  it('treats a scripted 401 refresh_token_expired from the issuer as permanent', async () => {
    const { manager, failures } = signedIn();
    sim.faults.add({
      kind: 'http_error',
      status: 401,
      code: 'refresh_token_expired',
      match: { path: '/oauth/token' },
    });
    expect((await failureOf(manager.forceRefresh())).kind).toBe('unauthorized');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/sign-in expired/);
  });

  it('treats 5xx and network failures as transient: no disabling, the next call works', async () => {
    const { manager, failures } = signedIn({ expiresAt: Date.now() - 1000 });
    sim.faults.add({ kind: 'http_error', status: 503, match: { path: '/oauth/token' } });
    expect(await failureOf(manager.accessToken())).toMatchObject({ kind: 'http', status: 503 });
    expect(failures).toEqual([]);
    expect(await manager.accessToken()).toMatch(/\./);

    const offline = createTokenManager({
      account: { id: 'acc_2', issuer: 'http://127.0.0.1:1', secretName: 's' },
      secrets: memorySecretStore({
        s: JSON.stringify({
          type: 'oauth',
          accessToken: 'a',
          refreshToken: 'r',
          idToken: '',
          expiresAt: 0,
        }),
      }),
      onPermanentFailure: (reason) => failures.push(reason),
    });
    expect((await failureOf(offline.accessToken())).kind).toBe('network');
    expect(failures).toEqual([]);
  });

  it('fails permanently, with a reason, when no sign-in is stored', async () => {
    const failures: string[] = [];
    const manager = createTokenManager({
      account: { id: 'acc_3', name: 'empty', issuer: sim.url, secretName: 'missing' },
      secrets: memorySecretStore(),
      onPermanentFailure: (reason) => failures.push(reason),
    });
    expect((await failureOf(manager.accessToken())).kind).toBe('unauthorized');
    expect(failures).toEqual(["No sign-in is stored for account 'empty'. Sign in again."]);
  });
});
