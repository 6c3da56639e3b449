import { describe, expect, it } from 'vitest';
import type { SqlQueries } from '../storage/engine';
import { ageLeases, ENGINES, testStorage } from '../storage/testing';
import { NO_LIMITS, type KeyLimits } from './keyLimits';
import { createUsageLedger, type UsageLedger } from './ledger';
import { KeyLimiter, RESERVATION_HOLD_MS, type LimitedKey } from './limiter';
import { LimitError } from './limitErrors';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const quiet = () => {};

function key(limits: Partial<KeyLimits>): LimitedKey {
  return { id: 'key_a', limits: { ...NO_LIMITS, ...limits } };
}

/** A usage row as the usage writer leaves it (only what the limits read). */
async function recordUsage(
  q: SqlQueries,
  requestId: string,
  row: { costMicros?: number; images?: number; at?: number; errorCode?: string },
) {
  await q.run(
    `INSERT INTO usage_records (request_id, created_at, endpoint, status, api_key_id, cost_micros, images, error_code)
     VALUES (?, ?, '/v1/images/generations', ?, 'key_a', ?, ?, ?)`,
    [
      requestId,
      row.at ?? NOW,
      row.errorCode ? 429 : 200,
      row.costMicros ?? 0,
      row.images ?? 0,
      row.errorCode ?? null,
    ],
  );
}

/** The limit a promise is refused by (its LimitError's limit name), or null when it resolves. */
async function refusal(work: Promise<unknown>): Promise<string | null> {
  try {
    await work;
    return null;
  } catch (error) {
    if (error instanceof LimitError) return error.limit.name;
    throw error;
  }
}

describe.each(ENGINES)('limits ledger on %s', (kind) => {
  it('reserves an estimate against the budget and counts it until the usage row is written', async () => {
    const { engine } = await testStorage(kind);
    const ledger = createUsageLedger(engine);
    const limiter = new KeyLimiter(ledger, { owner: 'one', now: () => NOW, log: quiet });
    const limited = key({ budgetMicros: 100_000, budgetPeriod: 'month' });

    await limiter.admit('req_1', limited, NOW, NOW);
    await limiter.reserve('req_1', limited, { costMicros: 60_000, images: 1 }, NOW);
    expect((await limiter.use(limited, NOW)).budgetUsedMicros).toBe(60_000);

    await limiter.admit('req_2', limited, NOW, NOW);
    expect(
      await refusal(limiter.reserve('req_2', limited, { costMicros: 50_000, images: 1 }, NOW)),
    ).toBe('budget');

    // req_1 is recorded at its real cost: the row counts, its reservation no longer does.
    await recordUsage(engine, 'req_1', { costMicros: 30_000, images: 1 });
    expect((await limiter.use(limited, NOW)).budgetUsedMicros).toBe(30_000);
    await limiter.charge('req_1', 30_000, NOW);
    // Released at the charge; req_2's refused estimate left no row (a budget key's row is made
    // with its estimate).
    expect(await engine.all('SELECT request_id FROM limit_reservations')).toEqual([]);
    expect((await limiter.use(limited, NOW)).budgetUsedMicros).toBe(30_000);
    await limiter.reserve('req_2', limited, { costMicros: 50_000, images: 1 }, NOW);
    expect((await limiter.use(limited, NOW)).budgetUsedMicros).toBe(80_000);
    limiter.close();
  });

  it("ends a reservation in its usage record's commit: the charge commits nothing more", async () => {
    const { engine } = await testStorage(kind);
    const ledger = createUsageLedger(engine);
    const released: string[] = [];
    const counted: UsageLedger = {
      ...ledger,
      release: async (requestId) => {
        released.push(requestId);
        await ledger.release(requestId);
      },
    };
    const limiter = new KeyLimiter(counted, { owner: 'one', now: () => NOW, log: quiet });
    const limited = key({ budgetMicros: 100_000, budgetPeriod: 'month' });
    const reservations = () => engine.all('SELECT request_id FROM limit_reservations');
    const complete = (requestId: string, costMicros: number) =>
      engine.transaction(async (tx) => {
        await recordUsage(tx, requestId, { costMicros, images: 1 });
        await limiter.releaseWithRecord(requestId)?.(tx);
      });

    // A key without limits, and one whose estimate holds nothing yet: nothing to end.
    expect(limiter.releaseWithRecord('req_unknown')).toBeNull();
    await limiter.admit('req_1', limited, NOW, NOW);
    expect(limiter.releaseWithRecord('req_1')).toBeNull();
    await limiter.reserve('req_1', limited, { costMicros: 60_000, images: 1 }, NOW);
    expect(await reservations()).toEqual([{ request_id: 'req_1' }]);

    await complete('req_1', 30_000);
    expect(await reservations()).toEqual([]);
    expect((await limiter.use(limited, NOW)).budgetUsedMicros).toBe(30_000);
    await limiter.charge('req_1', 30_000, NOW);
    expect(released).toEqual([]);
    expect(limiter.inFlight).toBe(0);

    // A record that could not be written (charged with null) still ends its reservation.
    await limiter.admit('req_2', limited, NOW, NOW);
    await limiter.reserve('req_2', limited, { costMicros: 10_000, images: 1 }, NOW);
    await expect(
      engine.transaction(async (tx) => {
        await limiter.releaseWithRecord('req_2')?.(tx);
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(await reservations()).toEqual([{ request_id: 'req_2' }]);
    await limiter.charge('req_2', null, NOW);
    expect(released).toEqual(['req_2']);
    expect(await reservations()).toEqual([]);
    limiter.close();
  });

  it('counts each request once against requests per minute: by reservation, then by row', async () => {
    const { engine } = await testStorage(kind);
    const limiter = new KeyLimiter(createUsageLedger(engine), {
      owner: 'one',
      now: () => NOW,
      log: quiet,
    });
    const limited = key({ rpmLimit: 2 });
    await limiter.admit('req_1', limited, NOW, NOW);
    await recordUsage(engine, 'req_1', {});
    await limiter.admit('req_2', limited, NOW, NOW);
    // A refusal's row is no request: it does not count.
    await recordUsage(engine, 'req_refused', { errorCode: 'rate_limit_exceeded' });
    expect((await limiter.use(limited, NOW)).requestsLastMinute).toBe(2);
    expect(await refusal(limiter.admit('req_3', limited, NOW, NOW))).toBe('requests_per_minute');
    // A minute later the window is free again.
    const later = NOW + 60_001;
    expect(await refusal(limiter.admit('req_4', limited, later, later))).toBeNull();
    limiter.close();
  });

  it("holds images per day, and a dead instance's reservation lapses when it is not renewed", async () => {
    const { engine } = await testStorage(kind);
    const ledger = createUsageLedger(engine);
    const dead = new KeyLimiter(ledger, { owner: 'dead', now: () => NOW, log: quiet });
    const limited = key({ imagesPerDay: 4 });
    await dead.admit('req_dead', limited, NOW, NOW);
    await dead.reserve('req_dead', limited, { costMicros: 0, images: 3 }, NOW);
    dead.close();

    const alive = new KeyLimiter(ledger, { owner: 'alive', now: () => NOW, log: quiet });
    await alive.admit('req_2', limited, NOW, NOW);
    expect(await refusal(alive.reserve('req_2', limited, { costMicros: 0, images: 2 }, NOW))).toBe(
      'images_per_day',
    );
    // A hold passes (on PostgreSQL by the database's clock, whatever the instances' say).
    await ageLeases(engine, 'limit_reservations', RESERVATION_HOLD_MS + 1);
    // Renewed by the living instance, lapsed for the dead one.
    const after = NOW + RESERVATION_HOLD_MS + 1;
    await ledger.renew('alive', after + RESERVATION_HOLD_MS, after);
    expect(
      await refusal(alive.reserve('req_2', limited, { costMicros: 0, images: 2 }, after)),
    ).toBeNull();
    expect(await engine.all('SELECT request_id FROM limit_reservations')).toEqual([
      { request_id: 'req_2' },
    ]);
    alive.close();
  });
});

describe('limits ledger across two instances (PostgreSQL)', () => {
  it("an instance whose clock runs ahead still counts a live instance's reservation", async () => {
    const { engine, connect } = await testStorage('postgres');
    // Midday, so the two clocks are on the same day; the leases go by the database's clock.
    const now = NOW;
    const onTime = new KeyLimiter(createUsageLedger(engine), {
      owner: 'on_time',
      now: () => now,
      log: quiet,
    });
    const ledgerAhead = createUsageLedger(await connect());
    // Its clock is past the other's hold: by it, every reservation the other made has lapsed.
    const ahead = now + RESERVATION_HOLD_MS + 60_000;
    const late = new KeyLimiter(ledgerAhead, { owner: 'ahead', now: () => ahead, log: quiet });
    const limited = key({ imagesPerDay: 4 });
    await onTime.admit('req_on_time', limited, now, now);
    await onTime.reserve('req_on_time', limited, { costMicros: 0, images: 3 }, now);
    await late.admit('req_ahead', limited, ahead, ahead);
    expect(
      await refusal(late.reserve('req_ahead', limited, { costMicros: 0, images: 2 }, ahead)),
    ).toBe('images_per_day');
    // Its renewal sweep keeps the other's live reservation too.
    await ledgerAhead.renew('ahead', ahead + RESERVATION_HOLD_MS, ahead);
    expect(await engine.all('SELECT request_id FROM limit_reservations')).toEqual([
      { request_id: 'req_on_time' },
    ]);
    onTime.close();
    late.close();
  });

  it('40 reservations at once against a $0.05 budget from two engines: never past it by more than one estimate', async () => {
    const { engine, connect } = await testStorage('postgres');
    const other = await connect();
    const instances = [engine, other].map(
      (e, i) =>
        new KeyLimiter(createUsageLedger(e), { owner: `i${i}`, now: () => NOW, log: quiet }),
    );
    const budget = 50_000;
    const estimate = 4_000;
    const limited = key({ budgetMicros: budget, budgetPeriod: 'day' });
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, async (_, n) => {
        const limiter = instances[n % 2]!;
        const id = `req_${n}`;
        await limiter.admit(id, limited, NOW, NOW);
        return refusal(limiter.reserve(id, limited, { costMicros: estimate, images: 1 }, NOW));
      }),
    );
    const admitted = outcomes.filter((o) => o === null).length;
    const reserved = (await engine.get<{ total: number }>(
      'SELECT COALESCE(SUM(cost_micros), 0) AS total FROM limit_reservations',
    ))!.total;
    // Each check and reservation is one step under the key's lock: exactly 12 fit in 50,000.
    expect(admitted).toBe(Math.floor(budget / estimate));
    expect(reserved).toBe(admitted * estimate);
    expect(reserved).toBeLessThanOrEqual(budget);
    expect(outcomes.filter((o) => o === 'budget')).toHaveLength(40 - admitted);
    for (const limiter of instances) limiter.close();
  });
});
