import { describe, expect, it } from 'vitest';
import { openAccountsRepository } from '../../src/gateway/accounts/repository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { UpstreamError, type UpstreamFailure } from '../../src/gateway/core/upstreamError';
import { tempDatabase } from '../../src/gateway/storage/testing';
import { dispatchCall } from '../../src/gateway/dispatch/dispatchCall';
import { DEFAULT_RETRIES } from '../../src/gateway/dispatch/retryPolicy';
import { apiKeyAccount, dispatchOverAccounts } from '../support/accounts';

/**
 * Dispatch over a real pool (a real accounts table with one account) and an adapter that
 * fails every call the way it is told. The adapter is the only stand-in: what it throws is what
 * `sendPost` and `failureFromThrown` produce for the same transport failure.
 */
async function setup(failure: UpstreamFailure) {
  const { db } = tempDatabase();
  const accounts = await openAccountsRepository(sqliteEngine(db));
  await accounts.create(apiKeyAccount({ name: 'Main' }));
  let calls = 0;
  const dispatch = dispatchOverAccounts(accounts);
  // No backoff waits in this test: it counts calls, and an unsent retry takes none anyway.
  const slept: number[] = [];
  dispatch.sleep = (ms) => {
    slept.push(ms);
    return Promise.resolve();
  };
  const call = (request: string) =>
    dispatchCall(
      dispatch,
      {
        group: 'default',
        pixels: 1024 * 1024,
        weight: 1,
        signal: new AbortController().signal,
        request,
      },
      () => {
        calls += 1;
        throw new UpstreamError(failure);
      },
    );
  const eligible = () =>
    dispatch.pool.eligible({ group: 'default', pixels: 1024 * 1024, exclude: new Set() }).length;
  return { call, calls: () => calls, slept, eligible };
}

describe('dispatchCall: what reaches the upstream twice', () => {
  it('retries a request that never left at once, within the same budget; a refused address counts against the account', async () => {
    const t = await setup({
      kind: 'network',
      message: 'ECONNREFUSED: connect',
      unsent: true,
      unreachable: true,
    });
    for (const request of ['a', 'b']) {
      await expect(t.call(request)).rejects.toBeInstanceOf(UpstreamError);
    }
    // 1 + maxRetries sends per request, never more, and no backoff between them.
    expect(t.calls()).toBe(2 * (1 + DEFAULT_RETRIES.maxRetries));
    expect(t.slept).toEqual([]);
    // The third request already finds the account resting (a 503 of every account resting).
    await expect(t.call('c')).rejects.toThrow();
    expect(t.eligible()).toBe(0);
  });

  it('a reused connection that dropped before the request went out says nothing about the account', async () => {
    const t = await setup({
      kind: 'network',
      message: 'UND_ERR_SOCKET: other side closed',
      unsent: true,
    });
    for (const request of ['a', 'b', 'c']) {
      await expect(t.call(request)).rejects.toBeInstanceOf(UpstreamError);
    }
    expect(t.calls()).toBe(3 * (1 + DEFAULT_RETRIES.maxRetries));
    expect(t.slept).toEqual([]);
    expect(t.eligible()).toBe(1);
  });

  it('a request that may have reached the upstream is retried with backoff and is outage evidence', async () => {
    const t = await setup({ kind: 'network', message: 'UND_ERR_SOCKET: other side closed' });
    // The third request already finds the account resting (a 503 of every account resting).
    for (const request of ['a', 'b', 'c']) await expect(t.call(request)).rejects.toThrow();
    expect(t.calls()).toBeLessThanOrEqual(3 * (1 + DEFAULT_RETRIES.maxRetries));
    expect(t.slept.length).toBeGreaterThan(0);
    // Failures from three different requests in a row rest the account.
    expect(t.eligible()).toBe(0);
  });
});
