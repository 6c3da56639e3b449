import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { admit } from '../../src/gateway/billing/admission';
import { DEFAULT_RETRIES } from '../../src/gateway/dispatch/retryPolicy';
import { readSize } from '../../src/gateway/validation/imageOptions';
import { createKeysRepository, type KeysRepository } from '../../src/gateway/keys/repository';
import type { SqlEngine } from '../../src/gateway/storage/engine';
import { openPricesRepository } from '../../src/gateway/storage/pricesRepository';
import {
  callTally,
  generate as generateAt,
  pooled,
  seeded,
  setUpTeam,
  TEAM_FAULTS,
  type TeamSetup,
} from '../support/team';

// Issue 21's "Done when": PostgreSQL + three `atelier serve` processes + HAProxy on loopback,
// against the simulator with 20 % faults. Everything is real: the run's PostgreSQL, three child
// processes, Debian's HAProxy, the simulator over HTTP. (The shared accounts' cases, a rest, 4K
// slots and an OAuth refresh, are test/team/sharedAccounts.test.ts.)

let setup: TeamSetup;
let engine: SqlEngine;
let keys: KeysRepository;
/** Upstream calls per request marker. */
let tally: ReturnType<typeof callTally>;

beforeAll(async () => {
  if (!inject('postgresUrl')) throw new Error(inject('postgresMissing'));
  setup = await setUpTeam({ postgresServer: inject('postgresUrl'), name: 'team' });
  engine = setup.engines[0]!;
  keys = createKeysRepository(engine);
  tally = callTally(setup.simulator, /\[team [a-z]+ \d+\]/);
}, 120_000);

afterAll(() => setup?.stop());

/** One generation of 1024x1024 through HAProxy (status 0: the connection was lost). */
async function generate(key: string, prompt: string) {
  try {
    return await generateAt(setup.team.balancer.url, key, prompt, { size: '1024x1024' });
  } finally {
    tally.take();
  }
}

interface Row {
  request_id: string;
  status: number;
  images: number;
  cost_micros: number;
}

const rowsOfKey = (keyId: string) =>
  engine.all<Row>(
    'SELECT request_id, status, images, cost_micros FROM usage_records WHERE api_key_id = ?',
    [keyId],
  );

describe('PostgreSQL + three gateway processes + HAProxy, simulator with 20 % faults', () => {
  it('300 requests over the instances: each billed once, billed = delivered, retries within budget', async () => {
    const { key, record } = await keys.create({ name: 'spread', group: 'default' });
    const random = seeded(21);
    const prompts = Array.from({ length: 300 }, (_, i) => {
      const marker = `[team spread ${i}]`;
      if (random() < 0.2) {
        const fault = TEAM_FAULTS[Math.floor(random() * TEAM_FAULTS.length)]!;
        setup.simulator.faults.add({ ...fault, match: { promptIncludes: marker } });
      }
      return `a lighthouse ${marker}`;
    });
    const answers = await pooled(
      prompts.map((prompt) => () => generate(key, prompt)),
      12,
    );
    // Every client had an answer from a gateway (its request id), never from the balancer alone.
    expect(answers.filter((a) => a.requestId === null)).toEqual([]);

    await expect
      .poll(async () => (await rowsOfKey(record.id)).length, { timeout: 30_000 })
      .toBe(300);
    const rows = await rowsOfKey(record.id);
    const byId = new Map(rows.map((row) => [row.request_id, row]));
    expect(byId.size).toBe(300);
    for (const answer of answers) {
      const row = byId.get(answer.requestId ?? '');
      expect(row?.status).toBe(answer.status);
      if (answer.status === 200) expect(row?.images).toBe(answer.images);
    }
    const budget = 1 + DEFAULT_RETRIES.maxRetries;
    expect([...tally.calls.values()].filter((calls) => calls > budget)).toEqual([]);
    // Round robin reached every instance.
    const served = await setup.team.balancer.served();
    expect([...served.values()].every((count) => count > 0)).toBe(true);
  }, 180_000);

  it('a $0.05 budget with 40 requests at once across the instances: spend within one estimate of it', async () => {
    const budgetMicros = 50_000;
    const { key, record } = await keys.create({
      name: 'budget',
      group: 'default',
      budgetMicros,
      budgetPeriod: 'month',
    });
    const prices = await openPricesRepository(engine);
    const estimate = admit(
      {
        image: {
          model: 'image-model-2',
          prompt: 'a lighthouse [team budget 0]',
          size: readSize('1024x1024', 'size'),
          quality: 'low',
          n: 1,
          partialImages: 0,
          inputImages: [],
        },
      },
      prices.get,
    ).costMicros;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => generate(key, `a lighthouse [team budget ${i}]`)),
    );
    await expect
      .poll(async () => (await rowsOfKey(record.id)).length, { timeout: 30_000 })
      .toBe(answers.filter((a) => a.requestId !== null).length);
    const spent = (await rowsOfKey(record.id)).reduce((sum, row) => sum + row.cost_micros, 0);
    expect(spent).toBeLessThanOrEqual(budgetMicros + estimate);
    // The budget did stop requests: some were refused.
    expect(answers.some((a) => a.status === 429)).toBe(true);
  });

  it('kill -9 one instance mid-burst: its requests get rows from the others, new work goes elsewhere', async () => {
    const { key, record } = await keys.create({ name: 'burst', group: 'default' });
    const { simulator, team } = setup;
    const victim = team.instances[1]!;
    const markers = Array.from({ length: 12 }, (_, i) => `[team burst ${i}]`);
    // Each burst request waits upstream long enough to be held when the instance dies.
    for (const marker of markers) {
      simulator.faults.add({ kind: 'slow', delayMs: 4_000, match: { promptIncludes: marker } });
    }
    const burst = markers.map((marker) => generate(key, `a lighthouse ${marker}`));
    await expect
      .poll(() => simulator.calls.filter((c) => markers.some((m) => c.prompt?.includes(m))).length)
      .toBe(markers.length);
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBeNull();

    // New work: every request answered by a live instance, none lost to the dead one.
    const after = await Promise.all(
      Array.from({ length: 6 }, (_, i) => generate(key, `a kite [team after ${i}]`)),
    );
    expect(after.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    await team.balancer.until((states) => states.get(`127.0.0.1:${victim.port}`) === 'DOWN');

    // Every request of the burst has exactly one row: finished by the instance that held it, or
    // recorded as interrupted by another instance once the dead one's lease ended.
    await Promise.all(burst);
    // A pending row's lease is 30 s and each instance looks for ended ones once per lease: up
    // to a minute after the kill.
    await expect
      .poll(async () => (await rowsOfKey(record.id)).length, { timeout: 90_000, interval: 1_000 })
      .toBe(markers.length + after.length);
    const rows = await rowsOfKey(record.id);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(rows.length);
  }, 150_000);
});
