import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../shared/imageParams';
import { INTERRUPTED } from '../../shared/usageRecord';
import type { GatewayEventMap } from '../core/events';
import { sizeOf } from '../core/requestedSize';
import type { EngineKind, SqlEngine } from '../storage/engine';
import { sqliteEngine } from '../storage/sqliteEngine';
import { ageLeases, ENGINES, tempDatabase, testStorage } from '../storage/testing';
import { recordInterrupted } from './interrupted';
import { createRejectedCounter } from './rejected';
import { createUsageRepository } from './repository';
import { createUsageWriter } from './writer';

const LEASE_MS = 30_000;

/** One gateway instance's writer on `engine`, with a clock of its own the test moves. */
function instance(engine: SqlEngine, clock: { now: number }) {
  const repository = createUsageRepository(engine);
  const events = new EventEmitter<GatewayEventMap>();
  const announced: string[] = [];
  events.on('usage', (id) => announced.push(id));
  const settled: Array<[string, number]> = [];
  events.on('settled', (id, cost) => settled.push([id, cost]));
  const writer = createUsageWriter({
    repository,
    priceFor: () => ({ textInput: 5, imageInput: 10, textOutput: 10, imageOutput: 40_000_000 }),
    events,
    rejected: createRejectedCounter(() => clock.now),
    now: () => clock.now,
    log: () => undefined,
    retryMs: 5,
    leaseMs: LEASE_MS,
  });
  return { repository, writer, writerEvents: events, announced, settled };
}

async function setup(kind: EngineKind) {
  const storage = await testStorage(kind);
  const clock = { now: 1_000 };
  const one = instance(storage.engine, clock);
  return { ...storage, ...one, clock, tick: (ms: number) => (clock.now += ms) };
}

const final = { status: 200, errorCode: null, errorMessage: null, latencyMs: 40 };
const tokens = { ...emptyUsage(), output_tokens: 1000, total_tokens: 1000 };
tokens.output_tokens_details = { text_tokens: 0, image_tokens: 1000 };

/** An image request admitted with an estimate, as the image routes admit one. */
function admittedRequest(writer: ReturnType<typeof instance>['writer'], requestId: string) {
  const notes = writer.open(requestId, 1_000, '/images/generations');
  notes.requested({ model: 'image-model-2', size: '1024x1024' });
  notes.authenticated({ id: 'key_1', group: 'default' });
  notes.admit({
    image: {
      model: 'image-model-2',
      prompt: 'a lease',
      size: sizeOf(1024, 1024),
      quality: 'low',
      n: 1,
      partialImages: 0,
    },
  });
  notes.dispatched({ id: 'acc_1', name: 'Main' });
  return notes;
}

describe.each(ENGINES)('usage writer on %s', (kind) => {
  it('keeps a pending row from the first dispatch, updates it per attempt, and ends it with the record', async () => {
    const t = await setup(kind);
    const notes = t.writer.open('req_a', 1_000, '/images/generations');
    notes.requested({ model: 'image-model-2', size: '1024x1024', n: 2 });
    notes.authenticated({ id: 'key_1', group: 'default' });
    expect(await t.repository.countPending()).toBe(0);
    notes.dispatched({ id: 'acc_1', name: 'Main' });
    t.tick(500);
    notes.dispatched({ id: 'acc_2', name: 'Spare' });
    await t.writer.pendingSaved();
    const [pending] = await t.repository.listPending();
    expect(pending).toMatchObject({
      requestId: 'req_a',
      attempts: 2,
      updatedAt: 1_500,
      ownerPid: process.pid,
      record: {
        apiKeyId: 'key_1',
        groupName: 'default',
        model: 'image-model-2',
        size: '1024x1024',
        n: 2,
        upstreamAccountId: 'acc_2',
      },
    });
    // A lease long from the lease clock's now: the writer's clock on SQLite, the database's on
    // PostgreSQL.
    const leaseLeft = pending!.leaseUntil - (kind === 'sqlite' ? 1_500 : Date.now());
    expect(leaseLeft).toBeGreaterThan(LEASE_MS - 5_000);
    expect(leaseLeft).toBeLessThanOrEqual(LEASE_MS);

    notes.delivered({ parts: [{ model: 'image-model-2', usage: tokens }], images: 2 });
    await Promise.all([t.writer.write(notes, final), t.writer.write(notes, final)]);
    expect(await t.repository.countPending()).toBe(0);
    expect(await t.repository.count()).toBe(1);
    expect(await t.repository.get('req_a')).toMatchObject({
      status: 200,
      images: 2,
      costMicros: 40_000,
    });
    expect(t.announced).toEqual(['req_a']);
    expect(t.settled).toEqual([['req_a', 40_000]]);
    // A dispatch told after the record was written (it cannot happen) would not revive the row.
    notes.dispatched({ id: 'acc_1', name: 'Main' });
    await t.writer.pendingSaved();
    expect(await t.repository.countPending()).toBe(0);
    await t.writer.close();
  });

  it('writes a request dispatched many times in a row once, with no pending row left', async () => {
    const t = await setup(kind);
    const notes = admittedRequest(t.writer, 'req_many');
    for (let i = 0; i < 20; i += 1) notes.dispatched({ id: `acc_${i}`, name: `A${i}` });
    notes.delivered({ parts: [{ model: 'image-model-2', usage: tokens }], images: 1 });
    // The record waits for the pending writes told before it: none lands after it.
    await t.writer.write(notes, final);
    await t.writer.pendingSaved();
    expect(await t.repository.countPending()).toBe(0);
    expect(await t.repository.get('req_many')).toMatchObject({ status: 200 });
    await t.writer.close();
  });

  it('records what a stopped run left pending as interrupted, once, at its estimate', async () => {
    const t = await setup(kind);
    admittedRequest(t.writer, 'req_stopped');
    const running = t.writer.open('req_running', 1_000, '/responses');
    running.dispatched({ id: 'acc_1', name: 'Main' });
    const finished = t.writer.open('req_finished', 1_000, '/images/generations');
    finished.dispatched({ id: 'acc_1', name: 'Main' });
    await t.writer.pendingSaved();
    // As a crash between the two would leave it: a finished record and its pending row.
    await t.repository.insert(finished.record(final, { costMicros: 0, estimated: false }));
    const estimate = (await t.repository.listPending()).find((p) => p.requestId === 'req_stopped')!
      .record.costMicros;
    expect(estimate).toBeGreaterThan(0);

    // This process's run is open, so its rows are requests under way, not a crash.
    expect(await t.writer.recordInterrupted()).toBe(0);
    expect(await t.repository.countPending()).toBe(3);

    // Pretend the rows came from another process's run: one stopped, one alive (renewing).
    await t.engine.run(`UPDATE usage_pending SET owner_pid = 999999991, owner_run = 'gone'`);
    await t.engine.run(
      `UPDATE usage_pending SET owner_pid = 999999992, owner_run = 'alive',
         lease_until = atelier_lease_clock(?) + ? WHERE request_id = 'req_running'`,
      [t.clock.now, LEASE_MS],
    );
    await t.engine.run(`UPDATE usage_pending SET lease_until = 0 WHERE owner_run = 'gone'`);
    const alive = (pid: number) => pid === 999999992;
    expect(await recordInterrupted(t.repository, { isAlive: alive, now: () => t.clock.now })).toBe(
      1,
    );
    expect((await t.repository.listPending()).map((p) => p.requestId)).toEqual(['req_running']);
    expect(await t.repository.get('req_stopped')).toMatchObject({
      status: 500,
      errorCode: INTERRUPTED,
      apiKeyId: 'key_1',
      model: 'image-model-2',
      size: '1024x1024',
      upstreamAccountId: 'acc_1',
      images: 0,
      costMicros: estimate,
      estimated: true,
    });
    expect((await t.repository.get('req_stopped'))!.errorMessage).toMatch(
      /after 1 upstream call\b/,
    );
    // The finished one keeps its record and is not recorded twice.
    expect(await t.repository.get('req_finished')).toMatchObject({ status: 200 });
    expect(await t.repository.count()).toBe(2);

    // The live one's process dies (SQLite) or its lease runs out (PostgreSQL).
    t.tick(LEASE_MS + 1);
    await ageLeases(t.engine, 'usage_pending', LEASE_MS + 1);
    expect(
      await recordInterrupted(t.repository, { isAlive: () => false, now: () => t.clock.now }),
    ).toBe(1);
    expect(await t.repository.countPending()).toBe(0);
    expect(await t.repository.count()).toBe(3);
    await t.writer.close();
  });
});

describe('usage writer on a read-only SQLite file', () => {
  it('fails closed: keeps the record, holds its charge, writes it once', async () => {
    const { db } = tempDatabase();
    const t = instance(sqliteEngine(db), { now: 1_000 });
    // SQLite refuses every write on this connection, as on a read-only data folder.
    db.pragma('query_only = 1');
    const notes = admittedRequest(t.writer, 'req_ro');
    await t.writer.pendingSaved();
    expect(t.writer.health.state).toMatchObject({ writable: false });
    expect((t.writer.health.state as { reason: string }).reason).toMatch(/^read-only/);
    notes.delivered({ parts: [{ model: 'image-model-2', usage: tokens }], images: 1 });
    await t.writer.write(notes, final);
    expect(t.writer.unwritten).toBe(1);
    expect(await t.repository.count()).toBe(0);
    // Its reservation stays held: nothing is settled before the row exists.
    expect(t.settled).toEqual([]);

    const written = new Promise<void>((resolve) => t.writerEvents.once('usage', () => resolve()));
    db.pragma('query_only = 0');
    await written;
    expect(await t.repository.get('req_ro')).toMatchObject({ status: 200, costMicros: 40_000 });
    expect(await t.repository.count()).toBe(1);
    expect(t.writer.unwritten).toBe(0);
    expect(t.settled).toEqual([['req_ro', 40_000]]);
    await t.writer.write(notes, final);
    expect(await t.repository.count()).toBe(1);
    await t.writer.close();
  });
});

describe('pending rows across instances on PostgreSQL', () => {
  it('one instance dies holding rows; the others record each once, after its lease, at its estimate', async () => {
    const storage = await testStorage('postgres');
    // Three instances on one database, each with its own connection pool and clock.
    const clock = { now: 1_000 };
    const dying = instance(storage.engine, clock);
    const survivors = [
      instance(await storage.connect(), clock),
      instance(await storage.connect(), clock),
    ];

    const held = Array.from({ length: 12 }, (_, i) =>
      admittedRequest(dying.writer, `req_held_${i}`),
    );
    // A survivor's own request under way: never taken, whatever the clock says.
    const own = admittedRequest(survivors[0]!.writer, 'req_own');
    await Promise.all([dying.writer.pendingSaved(), survivors[0]!.writer.pendingSaved()]);
    const estimate = (await dying.repository.listPending())[0]!.record.costMicros;
    expect(estimate).toBeGreaterThan(0);

    // kill -9: its run stops renewing and never writes. Within the lease nothing is taken (leases
    // go by the database's clock: the test moves them, not the instances' clocks).
    await dying.writer.close();
    await ageLeases(storage.engine, 'usage_pending', LEASE_MS - 5_000);
    expect(await survivors[0]!.writer.recordInterrupted()).toBe(0);
    expect(await dying.repository.countPending()).toBe(13);

    // Once the lease has ended both survivors reconcile at the same moment.
    await ageLeases(storage.engine, 'usage_pending', 5_000);
    const counts = await Promise.all(survivors.map((s) => s.writer.recordInterrupted()));
    expect(counts[0]! + counts[1]!).toBe(12);
    const rows = await storage.engine.all<{ requestId: string; n: number; cost: number }>(
      `SELECT request_id AS "requestId", COUNT(*) AS n, MAX(cost_micros) AS cost
       FROM usage_records GROUP BY request_id ORDER BY request_id`,
    );
    expect(rows).toHaveLength(12);
    for (const row of rows) expect(row).toMatchObject({ n: 1, cost: estimate });
    expect((await dying.repository.listPending()).map((p) => p.requestId)).toEqual(['req_own']);
    expect(await dying.repository.get('req_held_0')).toMatchObject({
      status: 500,
      errorCode: INTERRUPTED,
      estimated: true,
    });

    // Had the dead one only stalled, its late record changes nothing: the request is recorded once.
    held[0]!.delivered({ parts: [{ model: 'image-model-2', usage: tokens }], images: 1 });
    const late = instance(storage.engine, clock);
    await late.repository.complete(held[0]!.record(final, { costMicros: 1, estimated: false }));
    expect(await late.repository.count()).toBe(12);

    own.delivered({ parts: [{ model: 'image-model-2', usage: tokens }], images: 1 });
    await survivors[0]!.writer.write(own, final);
    expect(await dying.repository.countPending()).toBe(0);
    await Promise.all(survivors.map((s) => s.writer.close()));
    await late.writer.close();
  });

  it('an owner that renews its lease keeps its rows while it is slow', async () => {
    const storage = await testStorage('postgres');
    const clock = { now: 1_000 };
    const slow = instance(storage.engine, clock);
    const other = instance(await storage.connect(), clock);
    admittedRequest(slow.writer, 'req_slow');
    await slow.writer.pendingSaved();
    await ageLeases(storage.engine, 'usage_pending', LEASE_MS + 1);
    clock.now += LEASE_MS + 1;
    // The renewal its timer makes, at the new time.
    await slow.repository.renewLeases(
      (await slow.repository.listPending())[0]!.ownerRun,
      clock.now + LEASE_MS,
      clock.now,
    );
    expect(await other.writer.recordInterrupted()).toBe(0);
    // A reconcile decided on a stale read (the lease seen expired) does nothing either.
    const [stale] = await other.repository.listPending();
    expect(await other.repository.reconcile(stale!.requestId, stale!.record, clock.now)).toBe(
      false,
    );
    expect(await other.repository.count()).toBe(0);
    await slow.writer.close();
    await other.writer.close();
  });

  it("an instance whose clock runs ahead does not take a live instance's rows", async () => {
    const storage = await testStorage('postgres');
    const onTime = instance(storage.engine, { now: Date.now() });
    // Two leases ahead: by its own clock the other's lease ended long ago.
    const ahead = instance(await storage.connect(), { now: Date.now() + 2 * LEASE_MS });
    admittedRequest(onTime.writer, 'req_live');
    await onTime.writer.pendingSaved();
    expect(await ahead.writer.recordInterrupted()).toBe(0);
    const [live] = await ahead.repository.listPending();
    expect(
      await ahead.repository.reconcile(live!.requestId, live!.record, Date.now() + 2 * LEASE_MS),
    ).toBe(false);
    expect(await ahead.repository.count()).toBe(0);
    expect(await ahead.repository.countPending()).toBe(1);
    await onTime.writer.close();
    await ahead.writer.close();
  });
});
