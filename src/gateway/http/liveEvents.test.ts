import { EventEmitter, once } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BudgetAlert } from '../../shared/admin';
import type { GatewayEventMap, GatewayEvents } from '../core/events';
import { BROADCAST_MAX_BYTES } from '../storage/postgresEngine';
import { testStorage } from '../storage/testing';
import {
  encodeLiveNotice,
  parseLiveNotice,
  relayLiveEvents,
  type LiveEvents,
  type LiveNotice,
} from './liveEvents';

const ALERT: BudgetAlert = {
  apiKeyId: 'key_0123456789abcdef',
  percent: 80,
  period: 'day',
  budgetMicros: 50_000,
  spentMicros: 41_000,
  periodStart: 1_800_000_000_000,
  resetsAt: 1_800_086_400_000,
  at: 1_800_000_500_000,
};

/** Every event `live` passes on, in order, as [name, ...args]. */
function record(live: LiveEvents): unknown[][] {
  const seen: unknown[][] = [];
  live.on('usage', (...args) => seen.push(['usage', ...args]));
  live.on('image', (...args) => seen.push(['image', ...args]));
  live.on('budget', (...args) => seen.push(['budget', ...args]));
  return seen;
}

/** Resolves with the next event `name` on `live`; a second without one fails the test. */
function next<K extends 'usage' | 'image' | 'budget'>(live: LiveEvents, name: K) {
  return once(live as EventEmitter, name, { signal: AbortSignal.timeout(1_000) });
}

describe('live events across instances', () => {
  it('on PostgreSQL, shows each instance what the others did, within a second, once', async () => {
    const storage = await testStorage('postgres');
    const instances = [storage.engine, await storage.connect()].map((engine) => {
      const events: GatewayEvents = new EventEmitter<GatewayEventMap>();
      const logs: string[] = [];
      const relay = relayLiveEvents({ events, engine, log: (line) => logs.push(line) });
      return { events, relay, seen: record(relay.live), logs };
    });
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];

    const heardUsage = next(b.relay.live, 'usage');
    const started = performance.now();
    a.events.emit('usage', 'req_a1');
    // Heard on this instance at once, without the database.
    expect(a.seen).toEqual([['usage', 'req_a1']]);
    expect(await heardUsage).toEqual(['req_a1']);
    expect(performance.now() - started).toBeLessThan(1_000);

    const heardImage = next(a.relay.live, 'image');
    b.events.emit('image', 'img_b1', 'req_b1');
    expect(await heardImage).toEqual(['img_b1', 'req_b1']);
    const heardBudget = next(a.relay.live, 'budget');
    b.events.emit('budget', ALERT);
    expect(await heardBudget).toEqual([ALERT]);

    // Notices arrive in the order they were sent: by the time A heard B's budget notice, A's own
    // usage notice had come back too, and was not passed on twice.
    expect(a.seen).toEqual([
      ['usage', 'req_a1'],
      ['image', 'img_b1', 'req_b1'],
      ['budget', ALERT],
    ]);
    expect(b.seen).toEqual([
      ['usage', 'req_a1'],
      ['image', 'img_b1', 'req_b1'],
      ['budget', ALERT],
    ]);
    // Settlement and other internal events stay in their own instance.
    const heardLast = next(a.relay.live, 'usage');
    b.events.emit('settled', 'req_b1', 100, true);
    b.events.emit('usage', 'req_b2');
    expect(await heardLast).toEqual(['req_b2']);
    expect(a.seen.map((e) => e[0])).toEqual(['usage', 'image', 'budget', 'usage']);
    expect([...a.logs, ...b.logs]).toEqual([]);

    for (const { relay } of instances) relay.close();
  });

  it('ignores what is not a notice, and refuses one too long for NOTIFY before sending it', async () => {
    const storage = await testStorage('postgres');
    const events: GatewayEvents = new EventEmitter<GatewayEventMap>();
    const logs: string[] = [];
    const relay = relayLiveEvents({ events, engine: storage.engine, log: (l) => logs.push(l) });
    const seen = record(relay.live);
    const other = await storage.connect();
    await other.broadcast('not json');
    await other.broadcast(JSON.stringify({ from: 'x', event: 'usage' }));
    await other.broadcast(JSON.stringify({ from: 'x', event: 'settled', requestId: 'r' }));
    const heard = next(relay.live, 'usage');
    await other.broadcast(encodeLiveNotice({ from: 'x', event: 'usage', requestId: 'req_ok' }));
    expect(await heard).toEqual(['req_ok']);
    expect(seen).toEqual([['usage', 'req_ok']]);

    await expect(other.broadcast('x'.repeat(BROADCAST_MAX_BYTES + 1))).rejects.toThrow(RangeError);
    await expect(other.broadcast('é'.repeat(BROADCAST_MAX_BYTES / 2 + 1))).rejects.toThrow(
      RangeError,
    );
    // A budget notice whose key name is too long for one NOTIFY: shown here, logged once, lost
    // to the others (never a crash, never a partial notice).
    const huge = { ...ALERT, apiKeyName: 'n'.repeat(BROADCAST_MAX_BYTES) };
    events.emit('budget', huge);
    events.emit('budget', { ...huge, percent: 100 });
    expect(seen.slice(-2)).toEqual([
      ['budget', huge],
      ['budget', { ...huge, percent: 100 }],
    ]);
    const heardAfter = next(relay.live, 'usage');
    await other.broadcast(encodeLiveNotice({ from: 'x', event: 'usage', requestId: 'req_2' }));
    await heardAfter;
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      /live events not shared with other instances: A broadcast of \d+ bytes/,
    );
    relay.close();
  });

  it('shows a budget threshold once per period when two instances both announce it', async () => {
    const storage = await testStorage('postgres');
    const instances = [storage.engine, await storage.connect()].map((engine) => {
      const events: GatewayEvents = new EventEmitter<GatewayEventMap>();
      const relay = relayLiveEvents({ events, engine, log: () => undefined });
      return { events, relay, seen: record(relay.live) };
    });
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const heard = next(b.relay.live, 'budget');
    a.events.emit('budget', ALERT);
    await heard;
    // B reached the same threshold from the shared log: already shown, not again.
    b.events.emit('budget', { ...ALERT, spentMicros: ALERT.spentMicros + 10, at: ALERT.at + 5 });
    a.events.emit('budget', ALERT);
    // The next period's, and another threshold, are new.
    const nextPeriod = {
      ...ALERT,
      periodStart: ALERT.resetsAt!,
      resetsAt: ALERT.resetsAt! + 86_400_000,
    };
    const heardLast = next(a.relay.live, 'budget');
    b.events.emit('budget', { ...ALERT, percent: 100 });
    await heardLast;
    const heardNextPeriod = next(b.relay.live, 'budget');
    a.events.emit('budget', nextPeriod);
    await heardNextPeriod;
    // A budget raised within the period: its thresholds are its own.
    const raised = next(b.relay.live, 'budget');
    a.events.emit('budget', { ...nextPeriod, budgetMicros: 100_000 });
    await raised;
    const percents = (seen: unknown[][]) =>
      seen.map((e) => [(e[1] as BudgetAlert).percent, (e[1] as BudgetAlert).periodStart]);
    const expected = [
      [80, ALERT.periodStart],
      [100, ALERT.periodStart],
      [80, ALERT.resetsAt],
      [80, ALERT.resetsAt],
    ];
    expect(percents(b.seen)).toEqual(expected);
    expect(percents(a.seen)).toEqual(expected);
    for (const { relay } of instances) relay.close();
  });

  it('on SQLite, passes this gateway’s events on and sends nothing', async () => {
    const { engine } = await testStorage('sqlite');
    const events: GatewayEvents = new EventEmitter<GatewayEventMap>();
    const relay = relayLiveEvents({ events, engine, log: () => undefined });
    const seen = record(relay.live);
    events.emit('usage', 'r1');
    events.emit('image', 'i1', 'r1');
    events.emit('budget', ALERT);
    expect(seen).toEqual([
      ['usage', 'r1'],
      ['image', 'i1', 'r1'],
      ['budget', ALERT],
    ]);
    relay.close();
    events.emit('usage', 'r2');
    expect(seen).toHaveLength(3);
  });
});

describe('parseLiveNotice', () => {
  const id = fc.string({ minLength: 1, maxLength: 40 });
  const notice: fc.Arbitrary<LiveNotice> = fc.oneof(
    fc.record({ from: id, event: fc.constant('usage' as const), requestId: id }),
    fc.record({ from: id, event: fc.constant('image' as const), imageId: id, requestId: id }),
    fc.record({ from: id, event: fc.constant('budget' as const), alert: fc.constant(ALERT) }),
  );

  it('reads back every notice it encodes', () => {
    fc.assert(
      fc.property(notice, (n) => {
        expect(parseLiveNotice(encodeLiveNotice(n))).toEqual(n);
      }),
    );
  });

  it('answers null, never throws, for any other text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const parsed = parseLiveNotice(text);
          if (parsed !== null) expect(parseLiveNotice(encodeLiveNotice(parsed))).toEqual(parsed);
        },
      ),
    );
    expect(
      parseLiveNotice('{"__proto__":{"from":"x"},"event":"usage","requestId":"r"}'),
    ).toBeNull();
    expect(parseLiveNotice('null')).toBeNull();
    expect(parseLiveNotice('{"from":"x","event":"usage","requestId":""}')).toBeNull();
  });
});
