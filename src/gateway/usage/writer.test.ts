import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../shared/imageParams';
import { INTERRUPTED } from '../../shared/usageRecord';
import type { GatewayEventMap } from '../core/events';
import { tempDatabase } from '../storage/testing';
import { recordInterrupted } from './interrupted';
import { createRejectedCounter } from './rejected';
import { createUsageRepository } from './repository';
import { createUsageWriter } from './writer';

function setup() {
  const { db } = tempDatabase();
  const repository = createUsageRepository(db);
  const events = new EventEmitter<GatewayEventMap>();
  const announced: string[] = [];
  events.on('usage', (id) => announced.push(id));
  const settled: Array<[string, number]> = [];
  events.on('settled', (id, cost) => settled.push([id, cost]));
  let clock = 1_000;
  const writer = createUsageWriter({
    repository,
    priceFor: () => ({ textInput: 5, imageInput: 10, textOutput: 10, imageOutput: 40_000_000 }),
    events,
    rejected: createRejectedCounter(() => clock),
    now: () => clock,
    log: () => undefined,
    retryMs: 5,
  });
  return {
    db,
    repository,
    writer,
    writerEvents: events,
    announced,
    settled,
    tick: (ms: number) => (clock += ms),
  };
}

const final = { status: 200, errorCode: null, errorMessage: null, latencyMs: 40 };
const tokens = { ...emptyUsage(), output_tokens: 1000, total_tokens: 1000 };
tokens.output_tokens_details = { text_tokens: 0, image_tokens: 1000 };

describe('usage writer', () => {
  it('keeps a pending row from the first dispatch, updates it per attempt, and ends it with the record', () => {
    const t = setup();
    const notes = t.writer.open('req_a', 1_000, '/images/generations');
    notes.requested({ model: 'image-model-2', size: '1024x1024', n: 2 });
    notes.authenticated({ id: 'key_1', group: 'default' });
    expect(t.repository.countPending()).toBe(0);
    notes.dispatched({ id: 'acc_1', name: 'Main' });
    t.tick(500);
    notes.dispatched({ id: 'acc_2', name: 'Spare' });
    const [pending] = t.repository.listPending();
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

    notes.delivered({ parts: [{ model: 'image-model-2', usage: tokens }], images: 2 });
    t.writer.write(notes, final);
    t.writer.write(notes, final);
    expect(t.repository.countPending()).toBe(0);
    expect(t.repository.count()).toBe(1);
    expect(t.repository.get('req_a')).toMatchObject({ status: 200, images: 2, costMicros: 40_000 });
    expect(t.announced).toEqual(['req_a']);
    expect(t.settled).toEqual([['req_a', 40_000]]);
    // A dispatch told after the record was written (it cannot happen) would not revive the row.
    notes.dispatched({ id: 'acc_1', name: 'Main' });
    expect(t.repository.countPending()).toBe(0);
  });

  it('records what a stopped gateway left pending as interrupted, once, and leaves a live one alone', () => {
    const t = setup();
    const stopped = t.writer.open('req_stopped', 1_000, '/images/generations');
    stopped.requested({ model: 'image-model-2', size: '3840x2160', quality: 'high' });
    stopped.authenticated({ id: 'key_1', group: 'default' });
    stopped.dispatched({ id: 'acc_1', name: 'Main' });
    const running = t.writer.open('req_running', 1_000, '/responses');
    running.dispatched({ id: 'acc_1', name: 'Main' });
    const finished = t.writer.open('req_finished', 1_000, '/images/generations');
    finished.dispatched({ id: 'acc_1', name: 'Main' });
    // As a crash between the two would leave it: a finished record and its pending row.
    t.repository.insert(finished.record(final, { costMicros: 0, estimated: false }));

    // This process's run is open, so its rows are requests under way, not a crash.
    expect(t.writer.recordInterrupted()).toBe(0);
    expect(t.repository.countPending()).toBe(3);

    // Pretend the rows came from another process: one dead, one alive.
    t.db.prepare(`UPDATE usage_pending SET owner_pid = 999999991`).run();
    t.db
      .prepare(`UPDATE usage_pending SET owner_pid = 999999992 WHERE request_id = 'req_running'`)
      .run();
    const alive = (pid: number) => pid === 999999992;
    expect(recordInterrupted(t.repository, alive)).toBe(1);
    expect(t.repository.listPending().map((p) => p.requestId)).toEqual(['req_running']);
    expect(t.repository.get('req_stopped')).toMatchObject({
      status: 500,
      errorCode: INTERRUPTED,
      apiKeyId: 'key_1',
      model: 'image-model-2',
      size: '3840x2160',
      quality: 'high',
      upstreamAccountId: 'acc_1',
      images: 0,
      costMicros: 0,
    });
    expect(t.repository.get('req_stopped')!.errorMessage).toMatch(/after 1 upstream call\b/);
    // The finished one keeps its record and is not recorded twice.
    expect(t.repository.get('req_finished')).toMatchObject({ status: 200 });
    expect(t.repository.count()).toBe(2);

    expect(recordInterrupted(t.repository, () => false)).toBe(1);
    expect(t.repository.countPending()).toBe(0);
    expect(t.repository.count()).toBe(3);
  });

  it('fails closed while the log is read-only: keeps the record, holds its charge, writes it once', async () => {
    const t = setup();
    const notes = t.writer.open('req_ro', 1_000, '/images/generations');
    notes.authenticated({ id: 'key_1', group: 'default' });
    notes.admit({
      image: {
        model: 'image-model-2',
        prompt: 'a read-only disk',
        size: '1024x1024',
        quality: 'low',
        n: 1,
        partialImages: 0,
      },
    });
    // SQLite refuses every write on this connection, as on a read-only data folder.
    t.db.pragma('query_only = 1');
    notes.dispatched({ id: 'acc_1', name: 'Main' });
    expect(t.writer.health.state).toMatchObject({ writable: false });
    expect((t.writer.health.state as { reason: string }).reason).toMatch(/^read-only/);
    notes.delivered({ parts: [{ model: 'image-model-2', usage: tokens }], images: 1 });
    t.writer.write(notes, final);
    expect(t.writer.unwritten).toBe(1);
    expect(t.repository.count()).toBe(0);
    // Its reservation stays held: nothing is settled before the row exists.
    expect(t.settled).toEqual([]);

    t.db.pragma('query_only = 0');
    await new Promise<void>((resolve) => t.writerEvents.once('usage', () => resolve()));
    expect(t.repository.get('req_ro')).toMatchObject({ status: 200, costMicros: 40_000 });
    expect(t.repository.count()).toBe(1);
    expect(t.writer.unwritten).toBe(0);
    expect(t.settled).toEqual([['req_ro', 40_000]]);
    t.writer.write(notes, final);
    expect(t.repository.count()).toBe(1);
    t.writer.close();
  });
});
