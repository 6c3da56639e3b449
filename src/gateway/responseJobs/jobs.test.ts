import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDatabase } from '../storage/testing';
import { JOB_RETENTION_MS, ResponseJobs, type JobEvent } from './jobs';
import { createJobsRepository } from './repository';

/** One upstream Responses event as it arrives: an SSE block with the upstream's own numbering. */
const block = (type: string, fields: Record<string, unknown> = {}) => [
  Buffer.from(
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 999, ...fields })}\n\n`,
  ),
];
const shell = (status: string) => ({ id: 'resp_upstream', object: 'response', status, output: [] });

/** A job's whole upstream stream: created, `partials` partial images, completed. */
function runJob(jobs: ResponseJobs, id: string, partials: number, until = Infinity): void {
  const reply = jobs.reply(id);
  reply.openEvents();
  const events = [
    block('response.created', { response: shell('in_progress') }),
    ...Array.from({ length: partials }, (_, i) =>
      block('response.image_generation_call.partial_image', { partial_image_index: i }),
    ),
    block('response.completed', { response: shell('completed') }),
  ];
  events.slice(0, until).forEach((pieces) => reply.event(pieces));
  if (until >= events.length) reply.end();
}

function setup(now = () => 1_000_000) {
  const { db } = tempDatabase();
  return { jobs: new ResponseJobs(createJobsRepository(db), now), db };
}

describe('ResponseJobs', () => {
  it('numbers every event from 0 and names the job in its response objects', () => {
    const { jobs } = setup();
    const job = jobs.create('key_a', 'req_1', { model: 'agent-model-1' });
    runJob(jobs, job.id, 2);
    const seen: Array<JobEvent | null> = [];
    jobs.follow(job.id, -1, (event) => seen.push(event));
    expect(seen.at(-1)).toBeNull();
    const events = seen.slice(0, -1) as JobEvent[];
    expect(events.map((e) => e.sequenceNumber)).toEqual([0, 1, 2, 3]);
    expect(events.map((e) => JSON.parse(e.data).sequence_number)).toEqual([0, 1, 2, 3]);
    const last = JSON.parse(events[3]!.data) as { response: { id: string; background: boolean } };
    expect(last.response).toMatchObject({ id: job.id, background: true });
    expect(JSON.parse(jobs.get('key_a', job.id)!.response)).toMatchObject({
      id: job.id,
      status: 'completed',
    });
  });

  it('resumes after any event with each later one exactly once, live or stored (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: -1, max: 8 }),
        (partials, producedBeforeResume, after) => {
          const { jobs } = setup();
          const job = jobs.create('key_a', 'req_1', { model: 'agent-model-1' });
          const total = partials + 2;
          const before = Math.min(producedBeforeResume, total);
          // Part of the stream has happened; the client resumes; then the rest happens.
          runJob(jobs, job.id, partials, before);
          const got: number[] = [];
          let ended = false;
          jobs.follow(job.id, after, (event) => {
            if (event) got.push(event.sequenceNumber);
            else ended = true;
          });
          if (before < total) {
            const reply = jobs.reply(job.id);
            const rest = [
              block('response.created', { response: shell('in_progress') }),
              ...Array.from({ length: partials }, () =>
                block('response.image_generation_call.partial_image'),
              ),
              block('response.completed', { response: shell('completed') }),
            ].slice(before);
            rest.forEach((pieces) => reply.event(pieces));
            reply.end();
          }
          const expected = Array.from({ length: total }, (_, i) => i).filter((n) => n > after);
          expect(got).toEqual(expected);
          expect(ended).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('belongs to its key, and is gone once its time is up', () => {
    let now = 5_000;
    const { jobs } = setup(() => now);
    const job = jobs.create('key_a', 'req_1', { model: 'agent-model-1' });
    expect(jobs.get('key_b', job.id)).toBeNull();
    expect(jobs.get('key_a', job.id)).not.toBeNull();
    now += JOB_RETENTION_MS;
    expect(jobs.get('key_a', job.id)).toBeNull();
  });

  it('cancels once, and fails what a stopped gateway left unfinished', () => {
    const { jobs, db } = setup();
    const running = jobs.create('key_a', 'req_1', { model: 'agent-model-1' });
    runJob(jobs, running.id, 1, 2);
    const cancelled = jobs.cancel(jobs.get('key_a', running.id)!);
    expect(cancelled?.status).toBe('cancelled');
    expect(running.signal.aborted).toBe(true);
    expect(jobs.cancel(jobs.get('key_a', running.id)!)).toBeNull();

    const left = jobs.create('key_a', 'req_2', { model: 'agent-model-1' });
    runJob(jobs, left.id, 1, 2);
    // The next start reads the same database with a new store.
    const next = new ResponseJobs(createJobsRepository(db), () => 1_000_000);
    expect(next.failUnfinished()).toBe(1);
    const failed = JSON.parse(next.get('key_a', left.id)!.response) as {
      status: string;
      error: { message: string };
    };
    expect(failed.status).toBe('failed');
    expect(failed.error.message).toMatch(/gateway stopped before this response finished/);
  });
});
