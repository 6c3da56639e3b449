import { LEASE_CLOCK, type EngineKind, type SqlEngine } from '../storage/engine';
import type { RunOwner } from '../storage/runOwners';

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

/**
 * The run that runs a job, and its lease: `leaseMs` from the lease clock's now (storage/engine.ts
 * LEASE_CLOCK; `now` is the caller's clock). The run renews it while the job runs.
 */
export interface JobLease {
  owner: RunOwner;
  leaseMs: number;
  now: number;
}

/** An unfinished job with the run that owns it, and whether that run's lease has ended. */
export interface UnfinishedJob extends JobRow {
  ownerPid: number;
  ownerRun: string;
  leaseEnded: boolean;
}

/** The jobs and their events in the database, on either engine of the storage port. */
export interface JobsRepository {
  readonly kind: EngineKind;
  insert(job: JobRow, lease: JobLease): Promise<void>;
  /** Extends the lease of this run's unfinished jobs to `leaseMs` from the lease clock's now. */
  renewLeases(ownerRun: string, leaseMs: number, now: number): Promise<number>;
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
  /** Every unfinished job, with its owner and whether its lease has ended by `now`'s lease clock. */
  unfinished(now: number): Promise<UnfinishedJob[]>;
  /**
   * Fails a job another run left unfinished, only if it still is and (with `leaseJudgedAt`, the
   * caller's clock) its lease has ended by the lease clock: an owner that renewed keeps its job,
   * and of two instances failing one job one does. Whether this call failed it.
   */
  abandon(
    id: string,
    response: string,
    finishedAt: number,
    expiresAt: number | undefined,
    leaseJudgedAt?: number,
  ): Promise<boolean>;
  /** The unfinished jobs of one key whose id starts with `prefix` (the studio's runs). */
  unfinishedOf(apiKeyId: string, prefix: string): Promise<JobRow[]>;
  /** Deletes jobs (and their events) whose time is up; returns how many. */
  purge(now: number): Promise<number>;
}

const SELECT = `SELECT id, api_key_id AS "apiKeyId", request_id AS "requestId", status,
  created_at AS "createdAt", finished_at AS "finishedAt", expires_at AS "expiresAt", response
  FROM response_jobs`;

const UNFINISHED = "status IN ('queued', 'in_progress')";

export function createJobsRepository(engine: SqlEngine): JobsRepository {
  return {
    kind: engine.kind,
    async insert(job, lease) {
      await engine.run(
        `INSERT INTO response_jobs (id, api_key_id, request_id, status, created_at, finished_at,
           expires_at, response, owner_pid, owner_run, lease_until)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${LEASE_CLOCK} + ?)`,
        [
          job.id,
          job.apiKeyId,
          job.requestId,
          job.status,
          job.createdAt,
          job.finishedAt,
          job.expiresAt,
          job.response,
          lease.owner.pid,
          lease.owner.run,
          lease.now,
          lease.leaseMs,
        ],
      );
    },
    async renewLeases(ownerRun, leaseMs, now) {
      const renewed = await engine.run(
        `UPDATE response_jobs SET lease_until = ${LEASE_CLOCK} + ? WHERE owner_run = ? AND ${UNFINISHED}`,
        [now, leaseMs, ownerRun],
      );
      return renewed.changes;
    },
    async abandon(id, response, finishedAt, expiresAt, leaseJudgedAt) {
      const sql = `UPDATE response_jobs SET status = 'failed', response = ?, finished_at = ?,
          expires_at = COALESCE(?, expires_at) WHERE id = ? AND ${UNFINISHED}`;
      const values = [response, finishedAt, expiresAt ?? null, id];
      const { changes } =
        leaseJudgedAt === undefined
          ? await engine.run(sql, values)
          : await engine.run(`${sql} AND lease_until <= ${LEASE_CLOCK}`, [
              ...values,
              leaseJudgedAt,
            ]);
      return changes === 1;
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
    async unfinished(now) {
      const rows = await engine.all<Omit<UnfinishedJob, 'leaseEnded'> & { leaseEnded: number }>(
        `SELECT id, api_key_id AS "apiKeyId", request_id AS "requestId", status,
           created_at AS "createdAt", finished_at AS "finishedAt", expires_at AS "expiresAt",
           response, owner_pid AS "ownerPid", owner_run AS "ownerRun",
           CASE WHEN lease_until <= ${LEASE_CLOCK} THEN 1 ELSE 0 END AS "leaseEnded"
         FROM response_jobs WHERE ${UNFINISHED}`,
        [now],
      );
      return rows.map((row) => ({ ...row, leaseEnded: row.leaseEnded === 1 }));
    },
    unfinishedOf: (apiKeyId, prefix) =>
      engine.all<JobRow>(
        // substr, not LIKE: '_' in the prefix is a character, not a wildcard.
        `${SELECT} WHERE api_key_id = ? AND ${UNFINISHED}
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
