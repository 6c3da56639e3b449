import { describe, expect, it } from 'vitest';
import { openAccountsRepository } from '../../src/gateway/accounts/repository';
import { UpstreamError } from '../../src/gateway/core/upstreamError';
import { dispatchCall } from '../../src/gateway/dispatch/dispatchCall';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { tempDatabase } from '../../src/gateway/storage/testing';
import { apiKeyAccount, dispatchOverAccounts } from '../support/accounts';

// A team gateway's other instances learn of a rest from the database only, so a call whose
// failure rests its account fails to its caller after the rest is written, never before: the
// caller's next request may go to another instance. (Before, the write went off on its own and
// the answer came first: another instance used the account in 10 of 20 tries,
// test/team/sharedAccounts.test.ts.)
describe('a rest and the answer of the call that caused it', () => {
  it('the call fails to its caller only once the rest is in the database', async () => {
    const { db } = tempDatabase();
    const accounts = await openAccountsRepository(sqliteEngine(db));
    const { id } = await accounts.create(apiKeyAccount({ name: 'limited' }));
    const order: string[] = [];
    // The real write, held until the next turn of the event loop: the call's own failure path
    // runs in microtasks, so an answer that did not wait for the write comes first.
    const setCooldown = accounts.setCooldown.bind(accounts);
    accounts.setCooldown = async (...args) => {
      await new Promise((resolve) => setImmediate(resolve));
      await setCooldown(...args);
      order.push('rest written');
    };
    const failed = await dispatchCall(
      dispatchOverAccounts(accounts),
      { group: 'default', pixels: 1024 * 1024, weight: 1, signal: new AbortController().signal },
      () => {
        throw new UpstreamError({ kind: 'rate_limited', retryAfterMs: 60_000, message: '429' });
      },
    ).catch((error: unknown) => error);
    order.push('call failed');
    expect(failed).toBeInstanceOf(UpstreamError);
    expect(order).toEqual(['rest written', 'call failed']);
    expect((await accounts.get(id))?.cooldownKind).toBe('rate_limit');
  });
});
