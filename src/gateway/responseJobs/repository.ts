import type { Db } from '../storage/db';

export type JobStatus =
  'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete';

export const TERMINAL: ReadonlySet<JobStatus> = new Set([
  'completed',
  'failed',
  'cancelled',
  'incomplete',
]);

export interface JobRow {
  id: string;
  apiKeyId: string;
  requestId: string;
  status: JobStatus;
  createdAt: number;
  finishedAt: number | null;
  expiresAt: number;
  /** The response object as the API answers it (JSON). */
  response: string;
}

/** The jobs and their events in the database; every statement is plain, portable SQL. */
export interface JobsRepository {
  insert(job: JobRow): void;
  get(id: string): JobRow | null;
  update(id: string, status: JobStatus, response: string, finishedAt: number | null): void;
  addEvent(jobId: string, sequenceNumber: number, data: string): void;
  eventsAfter(jobId: string, after: number): Array<{ sequenceNumber: number; data: string }>;
  /** Jobs a stopped gateway left unfinished. */
  unfinished(): JobRow[];
  /** Deletes jobs (and their events) whose time is up; returns how many. */
  purge(now: number): number;
}

const SELECT = `SELECT id, api_key_id AS "apiKeyId", request_id AS "requestId", status,
  created_at AS "createdAt", finished_at AS "finishedAt", expires_at AS "expiresAt", response
  FROM response_jobs`;

export function createJobsRepository(db: Db): JobsRepository {
  const insert = db.prepare(
    `INSERT INTO response_jobs (id, api_key_id, request_id, status, created_at, finished_at, expires_at, response)
     VALUES (@id, @apiKeyId, @requestId, @status, @createdAt, @finishedAt, @expiresAt, @response)`,
  );
  const byId = db.prepare(`${SELECT} WHERE id = ?`);
  const update = db.prepare(
    'UPDATE response_jobs SET status = ?, response = ?, finished_at = ? WHERE id = ?',
  );
  const addEvent = db.prepare(
    'INSERT INTO response_job_events (job_id, sequence_number, data) VALUES (?, ?, ?)',
  );
  const after = db.prepare(
    `SELECT sequence_number AS "sequenceNumber", data FROM response_job_events
     WHERE job_id = ? AND sequence_number > ? ORDER BY sequence_number`,
  );
  const unfinished = db.prepare(`${SELECT} WHERE status IN ('queued', 'in_progress')`);
  const expiredEvents = db.prepare(
    'DELETE FROM response_job_events WHERE job_id IN (SELECT id FROM response_jobs WHERE expires_at <= ?)',
  );
  const expiredJobs = db.prepare('DELETE FROM response_jobs WHERE expires_at <= ?');
  const purge = db.transaction((now: number) => {
    expiredEvents.run(now);
    return expiredJobs.run(now).changes;
  });
  return {
    insert: (job) => void insert.run(job),
    get: (id) => (byId.get(id) as JobRow | undefined) ?? null,
    update: (id, status, response, finishedAt) => void update.run(status, response, finishedAt, id),
    addEvent: (jobId, sequenceNumber, data) => void addEvent.run(jobId, sequenceNumber, data),
    eventsAfter: (jobId, n) =>
      after.all(jobId, n) as Array<{ sequenceNumber: number; data: string }>,
    unfinished: () => unfinished.all() as JobRow[],
    purge: (now) => purge(now),
  };
}
