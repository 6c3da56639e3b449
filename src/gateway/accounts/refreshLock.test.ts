import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator';
import { createTokenManager } from '../oauth/tokenManager';
import { memorySecretStore } from '../oauth/testing';
import { testStorage } from '../storage/testing';
import { refreshLock } from './refreshLock';

// The issuer is the simulator's OAuth server over HTTP, with rotating refresh tokens (a second use
// of one is `refresh_token_reused`, which logs the account out). The secret store both instances
// share is in memory: a team gateway's is the database (issue 21 item 4), tested elsewhere.

const CLIENT_ID = 'app_test_client';
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
});
afterAll(() => sim.close());

const tokenCalls = () => sim.calls.filter((call) => call.kind === 'oauth.token').length;

describe('OAuth refresh across two instances (PostgreSQL)', () => {
  it('two instances asked to refresh the same expired token at once: one refresh reaches the issuer', async () => {
    const { engine, connect } = await testStorage('postgres');
    const login = sim.oauth.login({ clientId: CLIENT_ID });
    const store = memorySecretStore({
      'oauth:shared': JSON.stringify({
        type: 'oauth',
        accessToken: login.access_token,
        refreshToken: login.refresh_token,
        idToken: login.id_token,
        expiresAt: Date.now() - 1_000,
      }),
    });
    const failures: string[] = [];
    const managers = [engine, await connect()].map((instanceEngine) => {
      const lock = refreshLock(instanceEngine)!;
      return createTokenManager({
        account: { id: 'acct_shared', name: 'shared', issuer: sim.url, secretName: 'oauth:shared' },
        secrets: store,
        clientId: CLIENT_ID,
        onPermanentFailure: (reason) => failures.push(reason),
        exclusive: (work) => lock('acct_shared', work),
      });
    });
    const before = tokenCalls();
    const tokens = await Promise.all(
      managers.flatMap((manager) => [manager.accessToken(), manager.accessToken()]),
    );
    expect(tokenCalls()).toBe(before + 1);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(login.access_token);
    expect(failures).toEqual([]);
    // The instance that waited read the new tokens; a 401 on the old token refreshes nothing more.
    expect(await managers[1]!.forceRefresh(login.access_token)).toBe(tokens[0]);
    expect(tokenCalls()).toBe(before + 1);
  });

  it('without the lock both instances spend the same refresh token at the issuer', async () => {
    const login = sim.oauth.login({ clientId: CLIENT_ID });
    const store = memorySecretStore({
      'oauth:shared': JSON.stringify({
        type: 'oauth',
        accessToken: login.access_token,
        refreshToken: login.refresh_token,
        idToken: login.id_token,
        expiresAt: Date.now() - 1_000,
      }),
    });
    const managers = [0, 1].map(() =>
      createTokenManager({
        account: { id: 'acct_shared', name: 'shared', issuer: sim.url, secretName: 'oauth:shared' },
        secrets: store,
        clientId: CLIENT_ID,
        onPermanentFailure: () => {},
      }),
    );
    const before = tokenCalls();
    await Promise.allSettled(managers.map((manager) => manager.accessToken()));
    // Both reached the issuer with the same refresh token: what the lock exists to prevent.
    expect(tokenCalls()).toBe(before + 2);
  });
});
