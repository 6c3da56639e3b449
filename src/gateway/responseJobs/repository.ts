import type { SqlEngine } from '../storage/engine';

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

/** One event of a job's stream: its number, its type and its JSON text. */
export interface JobEvent {
  sequenceNumber: number;
  type: string;
  data: string;
}

export interface StoredJobEvent {
  sequenceNumber: number;
  data: string;
}

/** The jobs and their events in the database, on either engine of the storage port. */
export interface JobsRepository {
  insert(job: JobRow): Promise<void>;
  get(id: string): Promise<JobRow | null>;
  /** A new status and object; `expiresAt`, when given, moves the time the job is kept until. */
  update(
    id: string,
    status: JobStatus,
    response: string,
    finishedAt: number | null,
    expiresAt?: number,
  ): Promise<void>;
  addEvent(jobId: string, sequenceNumber: number, data: string): Promise<void>;
  eventsAfter(jobId: string, after: number): Promise<StoredJobEvent[]>;
  /** Jobs a stopped gateway left unfinished. */
  unfinished(): Promise<JobRow[]>;
  /** The unfinished jobs of one key whose id starts with `prefix` (the studio's runs). */
  unfinishedOf(apiKeyId: string, prefix: string): Promise<JobRow[]>;
  /** Deletes jobs (and their events) whose time is up; returns how many. */
  purge(now: number): Promise<number>;
}

const SELECT = `SELECT id, api_key_id AS "apiKeyId", request_id AS "requestId", status,
  created_at AS "createdAt", finished_at AS "finishedAt", expires_at AS "expiresAt", response
  FROM response_jobs`;

export function createJobsRepository(engine: SqlEngine): JobsRepository {
  return {
    async insert(job) {
      await engine.run(
        `INSERT INTO response_jobs (id, api_key_id, request_id, status, created_at, finished_at, expires_at, response)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          job.id,
          job.apiKeyId,
          job.requestId,
          job.status,
          job.createdAt,
          job.finishedAt,
          job.expiresAt,
          job.response,
        ],
      );
    },
    async get(id) {
      return (await engine.get<JobRow>(`${SELECT} WHERE id = ?`, [id])) ?? null;
    },
    async update(id, status, response, finishedAt, expiresAt) {
      await engine.run(
        // A cancel stands: the instance running the job may write its progress after another
        // instance's cancel, before it learns of it.
        `UPDATE response_jobs SET status = ?, response = ?, finished_at = ?,
           expires_at = COALESCE(?, expires_at) WHERE id = ? AND status <> 'cancelled'`,
        [status, response, finishedAt, expiresAt ?? null, id],
      );
    },
    async addEvent(jobId, sequenceNumber, data) {
      await engine.run(
        'INSERT INTO response_job_events (job_id, sequence_number, data) VALUES (?, ?, ?)',
        [jobId, sequenceNumber, data],
      );
    },
    eventsAfter: (jobId, after) =>
      engine.all<StoredJobEvent>(
        `SELECT sequence_number AS "sequenceNumber", data FROM response_job_events
         WHERE job_id = ? AND sequence_number > ? ORDER BY sequence_number`,
        [jobId, after],
      ),
    unfinished: () => engine.all<JobRow>(`${SELECT} WHERE status IN ('queued', 'in_progress')`),
    unfinishedOf: (apiKeyId, prefix) =>
      engine.all<JobRow>(
        // substr, not LIKE: '_' in the prefix is a character, not a wildcard.
        `${SELECT} WHERE api_key_id = ? AND status IN ('queued', 'in_progress')
           AND substr(id, 1, ?) = ? ORDER BY created_at`,
        [apiKeyId, prefix.length, prefix],
      ),
    purge: (now) =>
      engine.transaction(async (tx) => {
        await tx.run(
          'DELETE FROM response_job_events WHERE job_id IN (SELECT id FROM response_jobs WHERE expires_at <= ?)',
          [now],
        );
        return (await tx.run('DELETE FROM response_jobs WHERE expires_at <= ?', [now])).changes;
      }),
  };
}
