import { describe, expect, it } from 'vitest';
import { openAccountsRepository } from '../../src/gateway/accounts/repository';
import { createSlotLeases } from '../../src/gateway/accounts/slotLeases';
import { dispatchCall } from '../../src/gateway/dispatch/dispatchCall';
import { WEIGHT_CLASSES } from '../../src/gateway/dispatch/sizeClass';
import type { SqlEngine } from '../../src/gateway/storage/engine';
import { testStorage } from '../../src/gateway/storage/testing';
import { UpstreamError } from '../../src/gateway/core/upstreamError';
import { apiKeyAccount, dispatchOverAccounts } from '../support/accounts';

/** A 3840x2160 image: the 4K class. */
const FOUR_K_PIXELS = 3840 * 2160;

/** One instance of a team gateway's dispatch: its own connection, accounts, leases and queue. */
async function instance(engine: SqlEngine, name: string) {
  const accounts = await openAccountsRepository(engine);
  const slotLeases = createSlotLeases(engine, { owner: name, now: Date.now, log: () => {} });
  return { dispatch: dispatchOverAccounts(accounts, slotLeases), slotLeases, accounts };
}

describe('dispatch with slots shared across instances (PostgreSQL)', () => {
  it('one account with capacity for two 4K images: never more than two upstream at once across two instances', async () => {
    const { engine, connect } = await testStorage('postgres');
    const weight = WEIGHT_CLASSES.find((c) => FOUR_K_PIXELS <= c.maxPixels)!.weight;
    const accounts = await openAccountsRepository(engine);
    await accounts.create(apiKeyAccount({ name: 'shared', capacity: 2 * weight }));
    const instances = [await instance(engine, 'a'), await instance(await connect(), 'b')];

    let partner: (() => void) | null = null;
    const meet = () =>
      new Promise<void>((resolve) => {
        if (!partner) return void (partner = resolve);
        partner();
        partner = null;
        resolve();
      });
    let upstreamNow = 0;
    let most = 0;
    const served: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        dispatchCall(
          instances[n % 2]!.dispatch,
          {
            group: 'default',
            pixels: FOUR_K_PIXELS,
            weight,
            signal: new AbortController().signal,
          },
          async () => {
            upstreamNow += 1;
            most = Math.max(most, upstreamNow);
            // Each call stays upstream until a second one is there with it: calls go in pairs
            // while at most two fit, and a third at once would show in `most`.
            await meet();
            upstreamNow -= 1;
            served.push(`${n}`);
          },
        ),
      ),
    );
    expect(served).toHaveLength(8);
    expect(most).toBe(2);
    // Every lease was given back (its row's delete is sent off the request's path).
    for (const { slotLeases } of instances) {
      expect(slotLeases.held).toBe(0);
      slotLeases.close();
    }
  });

  it('an account rested by a 429 on one instance is not used by the other until its reset', async () => {
    const { engine, connect } = await testStorage('postgres');
    const accounts = await openAccountsRepository(engine);
    const { id } = await accounts.create(apiKeyAccount({ name: 'limited' }));
    const otherEngine = await connect();
    const [a, b] = [await instance(engine, 'a'), await instance(otherEngine, 'b')];
    const target = {
      group: 'default',
      pixels: 1024 * 1024,
      weight: 1,
      maxRetries: 0,
      signal: new AbortController().signal,
    };
    // The other instance hears the rest's change notice (PostgreSQL NOTIFY) and reads it.
    const heard = new Promise<void>((resolve) => {
      const undo = otherEngine.onChange(() => {
        undo();
        resolve();
      });
    });
    const rateLimited = await dispatchCall(a!.dispatch, target, () => {
      throw new UpstreamError({ kind: 'rate_limited', retryAfterMs: 60_000, message: 'HTTP 429' });
    }).catch((error: unknown) => error);
    expect(rateLimited).toBeInstanceOf(UpstreamError);
    await heard;
    await b!.accounts.refresh();
    const rest = b!.accounts.cached().find((account) => account.id === id)!;
    expect(rest.cooldownKind).toBe('rate_limit');
    expect(rest.cooldownUntil).toBeGreaterThan(Date.now() + 50_000);
    // Instance b has never seen a failure of its own, and still does not call the account.
    let called = 0;
    const refused = await dispatchCall(b!.dispatch, target, () => {
      called += 1;
      return Promise.resolve();
    }).catch((error: unknown) => error);
    expect(called).toBe(0);
    expect(refused).toMatchObject({ status: 429 });
    for (const { slotLeases } of [a!, b!]) slotLeases.close();
  });

  it('a rest another instance wrote binds before its change notice arrives', async () => {
    const { engine, connect } = await testStorage('postgres');
    const accounts = await openAccountsRepository(engine);
    const { id } = await accounts.create(apiKeyAccount({ name: 'limited' }));
    const b = await instance(await connect(), 'b');
    // The rest as another instance writes it, without the notice: b's snapshot does not have it,
    // as in the moment between another instance's write and its notice reaching b.
    await engine.run(
      'UPDATE accounts SET cooldown_until = ?, cooldown_reason = ?, cooldown_kind = ? WHERE id = ?',
      [Date.now() + 60_000, 'rate limited by the upstream', 'rate_limit', id],
    );
    expect(b.accounts.cached().find((account) => account.id === id)?.cooldownUntil).toBeNull();
    let called = 0;
    const refused = await dispatchCall(
      b.dispatch,
      {
        group: 'default',
        pixels: 1024 * 1024,
        weight: 1,
        maxRetries: 0,
        signal: new AbortController().signal,
      },
      () => {
        called += 1;
        return Promise.resolve();
      },
    ).catch((error: unknown) => error);
    // The slot claim read the rest from the database; the account was left out and b's
    // snapshot read again, so the answer is the rest's.
    expect(called).toBe(0);
    expect(refused).toMatchObject({ status: 429 });
    expect(b.accounts.cached().find((account) => account.id === id)?.cooldownKind).toBe(
      'rate_limit',
    );
    b.slotLeases.close();
  });
});
