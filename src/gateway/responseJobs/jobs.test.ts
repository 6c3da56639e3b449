import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SqlEngine } from '../storage/engine';
import { ageLeases, ENGINES, testStorage } from '../storage/testing';
import { JOB_LEASE_MS, JOB_RETENTION_MS, ResponseJobs, STUDIO_RUN_RETENTION_MS } from './jobs';
import { createJobsRepository, type JobEvent } from './repository';

/** One upstream Responses event as it arrives: an SSE block with the upstream's own numbering. */
const block = (type: string, fields: Record<string, unknown> = {}) => [
  Buffer.from(
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 999, ...fields })}\n\n`,
  ),
];
const shell = (status: string) => ({ id: 'resp_upstream', object: 'response', status, output: [] });

/** A job's whole upstream stream: created, `partials` partial images, completed. */
function streamOf(partials: number) {
  return [
    block('response.created', { response: shell('in_progress') }),
    ...Array.from({ length: partials }, (_, i) =>
      block('response.image_generation_call.partial_image', { partial_image_index: i }),
    ),
    block('response.completed', { response: shell('completed') }),
  ];
}

/** Plays events `from`..`until` of a job's stream into its reply, ending it at the last one. */
function play(jobs: ResponseJobs, id: string, partials: number, from = 0, until = Infinity) {
  const reply = jobs.reply(id);
  if (from === 0) reply.openEvents();
  const events = streamOf(partials);
  events.slice(from, until).forEach((pieces) => reply.event(pieces));
  if (until >= events.length) reply.end();
}

/** Follows a job from `after`; resolves with what was heard once the job ends. */
function followToEnd(jobs: ResponseJobs, id: string, after: number): Promise<JobEvent[]> {
  return new Promise((resolve) => {
    const seen: JobEvent[] = [];
    jobs.follow(id, after, (event) => {
      if (event) seen.push(event);
      else resolve(seen);
    });
  });
}

function jobsOn(engine: SqlEngine, now = () => 1_000_000) {
  return new ResponseJobs(createJobsRepository(engine), now);
}

describe.each(ENGINES)('ResponseJobs on %s', (kind) => {
  it('numbers every event from 0 and names the job in its response objects', async () => {
    const { engine } = await testStorage(kind);
    const jobs = jobsOn(engine);
    const job = await jobs.create('key_a', 'req_1', { model: 'agent-model-1' });
    play(jobs, job.id, 2);
    const events = await followToEnd(jobs, job.id, -1);
    expect(events.map((e) => e.sequenceNumber)).toEqual([0, 1, 2, 3]);
    expect(events.map((e) => JSON.parse(e.data).sequence_number)).toEqual([0, 1, 2, 3]);
    const last = JSON.parse(events[3]!.data) as { response: { id: string; background: boolean } };
    expect(last.response).toMatchObject({ id: job.id, background: true });
    await jobs.settled();
    // What a new process reads from the table is the same.
    const fresh = jobsOn(engine);
    expect(JSON.parse((await fresh.get('key_a', job.id))!.response)).toMatchObject({
      id: job.id,
      status: 'completed',
    });
    expect((await followToEnd(fresh, job.id, 1)).map((e) => e.sequenceNumber)).toEqual([2, 3]);
  });

  it('resumes after any event with each later one exactly once, written or not yet (property)', async () => {
    const { engine } = await testStorage(kind);
    const jobs = jobsOn(engine);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: -1, max: 7 }),
        fc.boolean(),
        async (partials, producedBeforeResume, after, settleFirst) => {
          const job = await jobs.create('key_a', `req_${(n += 1)}`, { model: 'agent-model-1' });
          const total = partials + 2;
          const before = Math.min(producedBeforeResume, total);
          // Part of the stream has happened (in the table, or still on its way there); the
          // client resumes while its read is under way the rest happens.
          play(jobs, job.id, partials, 0, before);
          if (settleFirst) await jobs.settled();
          const heard = followToEnd(jobs, job.id, after);
          if (before < total) play(jobs, job.id, partials, before);
          const expected = Array.from({ length: total }, (_, i) => i).filter((i) => i > after);
          expect((await heard).map((e) => e.sequenceNumber)).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('belongs to its key, and is gone once its time is up', async () => {
    let now = 5_000;
    const { engine } = await testStorage(kind);
    const jobs = jobsOn(engine, () => now);
    const job = await jobs.create('key_a', 'req_1', { model: 'agent-model-1' });
    expect(await jobs.get('key_b', job.id)).toBeNull();
    expect(await jobs.get('key_a', job.id)).not.toBeNull();
    now += JOB_RETENTION_MS;
    expect(await jobs.get('key_a', job.id)).toBeNull();
    // The next job's start deletes it and its events.
    await jobs.create('key_a', 'req_2', { model: 'agent-model-1' });
    expect(await engine.get('SELECT id FROM response_jobs WHERE id = ?', [job.id])).toBeUndefined();
  });

  it('cancels once, and fails what a stopped gateway left unfinished', async () => {
    const { engine } = await testStorage(kind);
    const jobs = jobsOn(engine);
    const running = await jobs.create('key_a', 'req_1', { model: 'agent-model-1' });
    play(jobs, running.id, 1, 0, 2);
    const cancelled = await jobs.cancel((await jobs.get('key_a', running.id))!, 'test');
    expect(cancelled?.status).toBe('cancelled');
    expect(running.signal.aborted).toBe(true);
    expect(await jobs.cancel((await jobs.get('key_a', running.id))!, 'test')).toBeNull();
    // What was in flight when it was cancelled is not kept.
    play(jobs, running.id, 1, 2);
    await jobs.settled();
    expect(await engine.get('SELECT status FROM response_jobs WHERE id = ?', [running.id])).toEqual(
      { status: 'cancelled' },
    );

    const left = await jobs.create('key_a', 'req_2', { model: 'agent-model-1' });
    play(jobs, left.id, 1, 0, 2);
    await jobs.settled();
    // While its run is open its jobs are its own, not left.
    const next = jobsOn(engine);
    expect(await next.failUnfinished()).toEqual({ responses: 0, studioRuns: 0 });
    // The run stops, and (PostgreSQL) its lease passes: the next start fails what it left.
    await jobs.close();
    await ageLeases(engine, 'response_jobs', JOB_LEASE_MS);
    expect(await next.failUnfinished()).toEqual({ responses: 1, studioRuns: 0 });
    const failed = JSON.parse((await next.get('key_a', left.id))!.response) as {
      status: string;
      error: { message: string };
    };
    expect(failed.status).toBe('failed');
    expect(failed.error.message).toMatch(/gateway stopped before this response finished/);
  });

  it("keeps a studio run's image events: listed while it runs, completed when it ends", async () => {
    const { engine } = await testStorage(kind);
    const jobs = jobsOn(engine);
    const run = await jobs.createStudioRun('studio_key', 'req_9', 'run-0001abcd', {
      endpoint: 'generations',
      n: 1,
    });
    expect(run?.id).toBe('run_run-0001abcd');
    expect(await jobs.createStudioRun('studio_key', 'req_10', 'run-0001abcd', {})).toBeNull();
    jobs.running(run!.id);
    jobs.event(run!.id, JSON.stringify({ type: 'image_generation.partial_image', b64_json: 'AA' }));
    expect(await jobs.studioRunsInFlight('studio_key')).toEqual([
      expect.objectContaining({
        id: 'run_run-0001abcd',
        runId: 'run-0001abcd',
        requestId: 'req_9',
        endpoint: 'generations',
        status: 'in_progress',
      }),
    ]);
    expect(await jobs.studioRunsInFlight('other_key')).toEqual([]);
    jobs.event(run!.id, JSON.stringify({ type: 'image_generation.completed', b64_json: 'AB' }));
    jobs.end(run!.id);
    const events = await followToEnd(jobs, run!.id, 0);
    expect(events.map((e) => [e.sequenceNumber, e.type])).toEqual([
      [1, 'image_generation.completed'],
    ]);
    await jobs.settled();
    expect(await jobs.studioRunsInFlight('studio_key')).toEqual([]);
    expect((await jobs.get('studio_key', run!.id))?.status).toBe('completed');
    // Kept an hour after its end (its images are in the gallery), not a day.
    expect(
      await engine.get('SELECT expires_at AS "expiresAt" FROM response_jobs WHERE id = ?', [
        run!.id,
      ]),
    ).toEqual({ expiresAt: 1_000_000 + STUDIO_RUN_RETENTION_MS });
  });

  it('fails a studio run whose stream reported an error, and its followers hear the error', async () => {
    const { engine } = await testStorage(kind);
    const jobs = jobsOn(engine);
    const run = (await jobs.createStudioRun('studio_key', 'req_1', 'run-0002abcd', {}))!;
    jobs.running(run.id);
    const heard = followToEnd(jobs, run.id, -1);
    jobs.event(run.id, JSON.stringify({ type: 'error', error: { code: 'x', message: 'broke' } }));
    jobs.end(run.id);
    expect((await heard).map((e) => e.type)).toEqual(['error']);
    const row = (await jobs.get('studio_key', run.id))!;
    expect(row.status).toBe('failed');
    expect(JSON.parse(row.response)).toMatchObject({ error: { code: 'x', message: 'broke' } });
  });
});

describe('ResponseJobs across the instances of a team gateway (PostgreSQL)', () => {
  /** Two gateways' job stores on one database; each reads the table every 10 ms. */
  async function twoInstances() {
    const { engine, connect } = await testStorage('postgres');
    const here = new ResponseJobs(createJobsRepository(engine), () => 1_000_000, undefined, {
      pollMs: 10,
    });
    const other = new ResponseJobs(
      createJobsRepository(await connect()),
      () => 1_000_000,
      undefined,
      {
        pollMs: 10,
      },
    );
    onTestFinished(async () => {
      await Promise.all([here.close(), other.close()]);
    });
    return { here, other };
  }

  it('follows a job another instance runs, from the table, each later event once, to its end', async () => {
    const { here, other } = await twoInstances();
    const job = await here.create('key_a', 'req_1', { model: 'agent-model-1' });
    play(here, job.id, 2, 0, 2);
    await here.settled();
    const seen: number[] = [];
    let heardFirst: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (heardFirst = resolve));
    const ended = new Promise<void>((resolve) => {
      other.follow(job.id, 0, (event) => {
        if (!event) return resolve();
        seen.push(event.sequenceNumber);
        heardFirst();
      });
    });
    await first;
    // The rest happens on the instance that runs it, after the follower read what was there.
    play(here, job.id, 2, 2);
    await ended;
    expect(seen).toEqual([1, 2, 3]);
  });

  it("an instance starting leaves the live instances' jobs alone, whatever its clock says", async () => {
    const { engine, connect } = await testStorage('postgres');
    const running = new ResponseJobs(createJobsRepository(engine), Date.now);
    onTestFinished(() => running.close());
    const job = await running.create('key_a', 'req_1', { model: 'agent-model-1' });
    const run = await running.createStudioRun('studio_key', 'req_2', 'run-live', {});
    play(running, job.id, 2, 0, 2);
    await running.settled();
    // Another instance starts, its clock two leases ahead of the database's.
    const starting = new ResponseJobs(
      createJobsRepository(await connect()),
      () => Date.now() + 2 * JOB_LEASE_MS,
    );
    onTestFinished(() => starting.close());
    expect(await starting.failUnfinished()).toEqual({ responses: 0, studioRuns: 0 });
    expect((await starting.get('key_a', job.id))?.status).toBe('in_progress');
    expect((await starting.get('studio_key', run!.id))?.status).toBe('queued');
    play(running, job.id, 2, 2);
    await running.settled();
    expect((await starting.get('key_a', job.id))?.status).toBe('completed');
  });

  it("fails a dead instance's job once its lease ends, and its followers elsewhere hear the end", async () => {
    const { engine, connect } = await testStorage('postgres');
    const dying = new ResponseJobs(createJobsRepository(engine), Date.now);
    // The survivor looks for lapsed leases once per 50 ms.
    const survivor = new ResponseJobs(createJobsRepository(await connect()), Date.now, undefined, {
      pollMs: 10,
      leaseMs: 50,
    });
    onTestFinished(() => survivor.close());
    const job = await dying.create('key_a', 'req_1', { model: 'agent-model-1' });
    play(dying, job.id, 2, 0, 2);
    await dying.settled();
    const ended = new Promise<void>((resolve) => {
      survivor.follow(job.id, -1, (event) => {
        if (!event) resolve();
      });
    });
    // Within its lease it is the dying instance's.
    expect(await survivor.failUnfinished()).toEqual({ responses: 0, studioRuns: 0 });
    // kill -9: its renewals stop (a closed store renews nothing), nothing else is written, and
    // its lease passes (by the database's clock: the test moves the lease).
    await dying.close();
    await ageLeases(engine, 'response_jobs', JOB_LEASE_MS);
    await ended;
    const row = (await survivor.get('key_a', job.id))!;
    expect(row.status).toBe('failed');
    expect(JSON.parse(row.response)).toMatchObject({
      error: { message: expect.stringMatching(/gateway stopped before this response finished/) },
    });
  });

  it("of two instances failing a dead instance's job at once, one does", async () => {
    const { engine, connect } = await testStorage('postgres');
    const dying = new ResponseJobs(createJobsRepository(engine), Date.now);
    const job = await dying.create('key_a', 'req_1', { model: 'agent-model-1' });
    await dying.close();
    await ageLeases(engine, 'response_jobs', JOB_LEASE_MS);
    const survivors = [
      new ResponseJobs(createJobsRepository(await connect()), Date.now),
      new ResponseJobs(createJobsRepository(await connect()), Date.now),
    ];
    onTestFinished(() => Promise.all(survivors.map((s) => s.close())).then(() => undefined));
    const counts = await Promise.all(survivors.map((s) => s.failUnfinished()));
    expect(counts.reduce((sum, c) => sum + c.responses, 0)).toBe(1);
    expect((await survivors[0]!.get('key_a', job.id))?.status).toBe('failed');
  });

  it('a cancel made on another instance stops the upstream work where the job runs, and stands', async () => {
    const { here, other } = await twoInstances();
    const job = await here.create('key_a', 'req_1', { model: 'agent-model-1' });
    play(here, job.id, 2, 0, 2);
    await here.settled();
    const aborted = new Promise((resolve) => job.signal.addEventListener('abort', resolve));
    const cancelled = await other.cancel((await other.get('key_a', job.id))!, 'test');
    expect(cancelled?.status).toBe('cancelled');
    await aborted;
    expect((await here.get('key_a', job.id))?.status).toBe('cancelled');
    // What the upstream still sent before it stopped changes nothing.
    play(here, job.id, 2, 2);
    await here.settled();
    expect((await other.get('key_a', job.id))?.status).toBe('cancelled');
  });
});
