import { randomBytes, randomUUID } from 'node:crypto';
import { ERROR_CODES } from '../../shared/errors';
import type { ResponsesRunReply } from '../imageService/types';
import { decodeEvent } from '../bytes/sse';
import { isOpenRun, openRun, processAlive, type RunOwner } from '../storage/runOwners';
import { followStored, typeOf } from './followStored';
import { leadingType, withSequence } from './sequenced';
import {
  TERMINAL,
  type JobEvent,
  type JobRow,
  type JobsRepository,
  type JobStatus,
} from './repository';

/** How long a background response is kept after it was made: then GET answers 404. */
export const JOB_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * How long a studio run is kept once it has ended: long enough for a page reloaded as it ended to
 * read its end; its images are in the gallery, and its events hold each one again as base64.
 */
export const STUDIO_RUN_RETENTION_MS = 60 * 60 * 1000;

/**
 * A job another instance of a team gateway runs is followed from the table, read this often; the
 * instance that runs a job reads it as often for a cancel made elsewhere.
 */
const OTHER_INSTANCE_POLL_MS = 1000;

/**
 * How long a job's lease lasts without renewal (ms, by the lease clock). The run renews its jobs'
 * leases every third of it; on PostgreSQL the other instances fail a job whose lease ended, each
 * looking once per lease.
 */
export const JOB_LEASE_MS = 30_000;

export interface ResponseJobsOptions {
  /** How often the table is read for what another instance of a team gateway did to a job. */
  pollMs?: number;
  leaseMs?: number;
}

/** Ids of background responses (`/v1/responses/{id}`). */
export const RESPONSE_JOB_PREFIX = 'resp_';
/** Ids of the studio's image runs: the prefix, then the run id the studio gave the run. */
export const STUDIO_RUN_JOB_PREFIX = 'run_';

type Json = Record<string, unknown>;

interface JobError {
  code: string;
  message: string;
}

interface LiveJob {
  id: string;
  controller: AbortController;
  listeners: Set<(event: JobEvent | null) => void>;
  nextSequence: number;
  /** The job as the API answers it, ahead of the database (its writes are queued). */
  status: JobStatus;
  object: Json;
  /** Events numbered but not yet written: a follower that reads the table now adds these. */
  unwritten: Map<number, JobEvent>;
  /** This job's writes, one after another, so the table sees them in order. */
  writes: Promise<void>;
  /** No more events will come; the job leaves `live` once its writes are done. */
  ended: boolean;
}

const STATUS_OF_RESPONSE_EVENT: Record<string, JobStatus> = {
  'response.created': 'in_progress',
  'response.queued': 'queued',
  'response.in_progress': 'in_progress',
  'response.completed': 'completed',
  'response.failed': 'failed',
  'response.incomplete': 'incomplete',
};

/** Why a job a stopped gateway left unfinished failed: a background response, or a studio run. */
const stopped = (what: 'response' | 'run'): JobError => ({
  code: 'server_error',
  message: `The gateway stopped before this ${what} finished; it was not resumed. Its usage record says what was billed.`,
});

/**
 * Requests that run detached from their connection: a job per request, owned by the key that
 * made it, its status and object in the database, and every event of its stream with its
 * `sequence_number`, so a client can poll it, resume its stream after any event, or cancel it.
 * The request itself runs as any request (one usage row, limits, gallery); only its reply goes
 * into the job instead of onto the connection.
 *
 * Two kinds share this: background responses (`background: true` on /v1/responses, ids `resp_`),
 * whose status follows the Responses events, and the studio's image runs (ids `run_<run id>`),
 * an image event stream that completes when it ends without an `error` event.
 */
export class ResponseJobs {
  private readonly live = new Map<string, LiveJob>();
  /** While this gateway runs jobs: looks for cancels another instance wrote (`watchCancels`). */
  private cancelWatch: NodeJS.Timeout | null = null;
  /** This gateway run, as the owner of the jobs it runs (and of their leases). */
  private readonly owner: RunOwner = { pid: process.pid, run: randomUUID() };
  private readonly closeRun = openRun(this.owner);
  private readonly pollMs: number;
  private readonly leaseMs: number;
  /** PostgreSQL: the instances share the table, and judge each other's jobs by their leases. */
  private readonly shared: boolean;
  /** While this gateway runs jobs on a shared database: renews their leases. */
  private renewal: NodeJS.Timeout | null = null;
  /** On a shared database, from the first `failUnfinished`: fails what dead instances left. */
  private sweep: NodeJS.Timeout | null = null;
  private sweeping: Promise<{ responses: number; studioRuns: number }> | null = null;

  constructor(
    private readonly repo: JobsRepository,
    private readonly now: () => number,
    private readonly log: (line: string) => void = () => undefined,
    options: ResponseJobsOptions = {},
  ) {
    this.pollMs = options.pollMs ?? OTHER_INSTANCE_POLL_MS;
    this.leaseMs = options.leaseMs ?? JOB_LEASE_MS;
    this.shared = repo.kind === 'postgres';
  }

  /**
   * At start: the jobs a stopped gateway left unfinished are failed, saying why. Only a stopped
   * one's: on SQLite a job whose process is gone (every writer is a process of this machine), on
   * PostgreSQL a job whose run's lease has ended (the other instances' jobs run on). On
   * PostgreSQL it then looks again once per lease, for the jobs of an instance that died since.
   */
  async failUnfinished(): Promise<{ responses: number; studioRuns: number }> {
    if (this.shared && !this.sweep) {
      this.sweep = setInterval(() => {
        this.failUnfinished().then(
          ({ responses, studioRuns }) => {
            if (responses + studioRuns > 0)
              this.log(
                `${responses} background response(s) and ${studioRuns} studio run(s) of a gateway instance that stopped: failed`,
              );
          },
          (error: unknown) => this.log(`unfinished jobs not looked at: ${String(error)}`),
        );
      }, this.leaseMs);
      this.sweep.unref();
    }
    this.sweeping ??= this.failLeft().finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  private async failLeft(): Promise<{ responses: number; studioRuns: number }> {
    const now = this.now();
    let responses = 0;
    let studioRuns = 0;
    for (const row of await this.repo.unfinished(now)) {
      // A run still open in this process runs it (run ids are random).
      if (isOpenRun(row.ownerRun)) continue;
      if (
        this.shared ? !row.leaseEnded : row.ownerPid !== process.pid && processAlive(row.ownerPid)
      )
        continue;
      const isRun = row.id.startsWith(STUDIO_RUN_JOB_PREFIX);
      const error = stopped(isRun ? 'run' : 'response');
      const object = { ...(JSON.parse(row.response) as Json), status: 'failed', error };
      const at = this.now();
      const text = JSON.stringify(object);
      const judged = this.shared ? now : undefined;
      if (!(await this.repo.abandon(row.id, text, at, keptUntil(row.id, at), judged))) continue;
      if (isRun) studioRuns += 1;
      else responses += 1;
    }
    await this.repo.purge(this.now());
    return { responses, studioRuns };
  }

  /** A new background response for a validated request: answered at once as `queued`. */
  async create(
    keyId: string,
    requestId: string,
    body: Json,
  ): Promise<{ id: string; signal: AbortSignal; response: Json }> {
    const id = `${RESPONSE_JOB_PREFIX}${randomBytes(24).toString('hex')}`;
    const createdAt = this.now();
    const response: Json = {
      id,
      object: 'response',
      created_at: Math.floor(createdAt / 1000),
      status: 'queued',
      background: true,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      model: body.model,
      output: [],
      tools: body.tools ?? [],
      metadata: body.metadata ?? {},
      usage: null,
    };
    const signal = await this.start(id, keyId, requestId, createdAt, response);
    return { id, signal, response };
  }

  /**
   * A studio image run as a job, by the run id the studio gave it; `summary` is what the studio
   * shows of it while it runs (endpoint, prompt, size...). Null when that run already has a job.
   */
  async createStudioRun(
    keyId: string,
    requestId: string,
    runId: string,
    summary: Json,
  ): Promise<{ id: string; signal: AbortSignal } | null> {
    const id = `${STUDIO_RUN_JOB_PREFIX}${runId}`;
    if (this.live.has(id) || (await this.repo.get(id))) return null;
    const createdAt = this.now();
    const object: Json = {
      ...summary,
      id,
      object: 'studio.run',
      runId,
      requestId,
      createdAt,
      status: 'queued',
      error: null,
    };
    const signal = await this.start(id, keyId, requestId, createdAt, object);
    return { id, signal };
  }

  /** Cancels a job this gateway runs: its status, then its upstream work. */
  private stop(live: LiveJob, reason: string): void {
    if (live.id.startsWith(STUDIO_RUN_JOB_PREFIX) && !live.ended) {
      // Every page following the run learns why it ends without its images (the page that
      // cancelled has stopped reading; another tab has not).
      const sequenceNumber = live.nextSequence++;
      const error = {
        type: 'error',
        code: ERROR_CODES.cancelled,
        message: `The run was ${reason}.`,
      };
      const data = JSON.stringify({ type: 'error', error, sequence_number: sequenceNumber });
      this.keep(live, { sequenceNumber, type: 'error', data });
    }
    this.finish(live, 'cancelled', null);
    live.controller.abort(new Error(reason));
  }

  /** Cancels the studio run `runId` of the key `keyId`; false when it has no job still going. */
  async cancelStudioRun(keyId: string, runId: string): Promise<boolean> {
    const row = await this.get(keyId, `${STUDIO_RUN_JOB_PREFIX}${runId}`);
    return row !== null && (await this.cancel(row, 'cancelled from the studio')) !== null;
  }

  /** The studio's runs still going for the key `keyId` (the Studio key), oldest first. */
  async studioRunsInFlight(keyId: string): Promise<Json[]> {
    const rows = await this.repo.unfinishedOf(keyId, STUDIO_RUN_JOB_PREFIX);
    // The table may not have the end of a run that just ended yet: its live state says so.
    return rows.flatMap((row) => {
      const live = this.live.get(row.id);
      if (live && TERMINAL.has(live.status)) return [];
      return [live ? { ...live.object, status: live.status } : (JSON.parse(row.response) as Json)];
    });
  }

  /** The job if it exists, is not expired and belongs to `keyId`; else null (a 404). */
  async get(keyId: string, id: string): Promise<JobRow | null> {
    const row = await this.repo.get(id);
    if (!row || row.apiKeyId !== keyId || row.expiresAt <= this.now()) return null;
    // The database may lag behind the job's own queued writes: answer what is known.
    const live = this.live.get(id);
    return live ? { ...row, status: live.status, response: JSON.stringify(live.object) } : row;
  }

  /** Cancels a queued or running job: its upstream work stops. Null when it was already over. */
  async cancel(row: JobRow, reason: string): Promise<JobRow | null> {
    const live = this.live.get(row.id);
    if (TERMINAL.has(live ? live.status : row.status)) return null;
    if (live) {
      this.stop(live, reason);
      await live.writes;
    } else {
      const object = { ...(JSON.parse(row.response) as Json), status: 'cancelled' };
      const at = this.now();
      await this.repo.update(
        row.id,
        'cancelled',
        JSON.stringify(object),
        at,
        keptUntil(row.id, at),
      );
    }
    return this.get(row.apiKeyId, row.id);
  }

  /**
   * Every event after `after`, then each new one until the job ends (`onEvent(null)`), each once
   * and in order. The listener is added first and what it hears is held while the table is read;
   * the events numbered but not yet written are taken in the same turn, so none falls between.
   */
  follow(id: string, after: number, onEvent: (event: JobEvent | null) => void): () => void {
    const live = this.live.get(id);
    if (!live) {
      return followStored(this.repo, id, after, onEvent, {
        pollMs: this.pollMs,
        now: this.now,
        log: this.log,
      });
    }
    let last = after;
    let done = false;
    let held: Array<JobEvent | null> | null = [];
    const deliver = (event: JobEvent | null) => {
      if (done) return;
      if (!event) {
        done = true;
        onEvent(null);
      } else if (event.sequenceNumber > last) {
        // A caller may name an event not made yet: events at or before it are skipped too.
        last = event.sequenceNumber;
        onEvent(event);
      }
    };
    const listener = (event: JobEvent | null) => (held ? held.push(event) : deliver(event));
    const unwritten = [...live.unwritten.values()];
    const endedBefore = live.ended;
    if (!endedBefore) live.listeners.add(listener);
    this.repo.eventsAfter(id, after).then(
      (stored) => {
        const known = [...stored.map((e) => ({ ...e, type: typeOf(e.data) })), ...unwritten];
        known.sort((a, b) => a.sequenceNumber - b.sequenceNumber);
        for (const event of known) deliver(event);
        const heard = held ?? [];
        held = null;
        for (const event of heard) deliver(event);
        if (endedBefore) deliver(null);
      },
      (error: unknown) => {
        this.log(`job ${id}: its events could not be read (${String(error)})`);
        deliver(null);
      },
    );
    return () => {
      done = true;
      live.listeners.delete(listener);
    };
  }

  /**
   * While this gateway runs jobs, their rows are read every `pollMs`: a cancel another instance
   * wrote there (its Cancel reached that instance) stops the upstream work here.
   */
  private watchCancels(): void {
    if (this.cancelWatch || this.live.size === 0) return;
    this.cancelWatch = setInterval(() => {
      const running = [...this.live.values()].filter((live) => !live.ended);
      if (running.length === 0) {
        clearInterval(this.cancelWatch!);
        this.cancelWatch = null;
        return;
      }
      for (const live of running) {
        this.repo.get(live.id).then(
          (row) => {
            if (row?.status === 'cancelled' && !live.ended && live.status !== 'cancelled') {
              this.stop(live, 'cancelled elsewhere (another instance of the gateway)');
            }
          },
          (error: unknown) =>
            this.log(`job ${live.id}: its row could not be read (${String(error)})`),
        );
      }
    }, this.pollMs);
    this.cancelWatch.unref();
  }

  /** Where a background response's request writes its reply. */
  reply(id: string): ResponsesRunReply {
    let committed = false;
    return {
      get committed() {
        return committed;
      },
      openEvents: () => {
        committed = true;
        this.running(id);
      },
      event: (pieces) => {
        const block = decodeEvent([...pieces]);
        if (block) this.event(id, block.data.toString('utf8'));
      },
      whole: (status, body) => {
        committed = true;
        const live = this.live.get(id);
        if (!live || TERMINAL.has(live.status)) return;
        let doc: Json = {};
        try {
          doc = JSON.parse(body.toString('utf8')) as Json;
        } catch {
          // reported below as a failure
        }
        if (status === 200 && doc.object === 'response') {
          this.finish(live, 'completed', null, { ...doc, id, background: true });
        } else {
          const error = (doc.error as Json | undefined) ?? {};
          this.finish(live, 'failed', {
            code: String(error.code ?? 'server_error'),
            message: String(error.message ?? `the upstream answered ${status}`),
          });
        }
      },
      end: () => this.end(id),
    };
  }

  /** The job's stream has begun: it is running. */
  running(id: string): void {
    const live = this.live.get(id);
    if (live && live.status === 'queued') this.setStatus(live, 'in_progress');
  }

  /**
   * One event of the job's stream (its JSON text): numbered, kept and passed to followers. Only
   * the events that say something about the job (a Responses status event, an `error`) are
   * parsed; the rest, image events with their base64, are numbered as text (sequenced.ts).
   */
  event(id: string, text: string): void {
    const type = leadingType(text);
    if (type !== null && type !== 'error' && !(type in STATUS_OF_RESPONSE_EVENT)) {
      const live = this.accepting(id);
      if (!live) return;
      const sequenceNumber = live.nextSequence;
      const data = withSequence(text, sequenceNumber);
      if (data !== null) {
        live.nextSequence += 1;
        this.keep(live, { sequenceNumber, type, data });
        return;
      }
    }
    let data: Json;
    try {
      data = JSON.parse(text) as Json;
    } catch {
      return;
    }
    this.record(id, data);
  }

  /**
   * The job's stream ended. A background response that did not say it completed has failed; a
   * studio run that reported no error has completed.
   */
  end(id: string): void {
    const live = this.live.get(id);
    if (live && !TERMINAL.has(live.status)) {
      if (id.startsWith(STUDIO_RUN_JOB_PREFIX)) this.finish(live, 'completed', null);
      else
        this.finish(live, 'failed', {
          code: 'server_error',
          message: 'The upstream stream ended before the response completed.',
        });
    }
    if (live) this.closeLive(live);
  }

  /** The request failed before any event (a refusal, an upstream error): the job says why. */
  fail(id: string, error: { code: string | null; message: string }): void {
    const live = this.live.get(id);
    if (!live) return;
    if (!TERMINAL.has(live.status)) {
      this.finish(live, 'failed', { code: error.code ?? 'server_error', message: error.message });
    }
    this.closeLive(live);
  }

  /** Resolves once every job's writes so far are in the database. */
  async settled(): Promise<void> {
    await Promise.all([...this.live.values()].map((live) => live.writes));
  }

  /** At a stop, once no request runs: the last writes land, and the table is read no more. */
  async close(): Promise<void> {
    await this.settled();
    for (const timer of [this.cancelWatch, this.renewal, this.sweep]) {
      if (timer) clearInterval(timer);
    }
    this.cancelWatch = this.renewal = this.sweep = null;
    await this.sweeping?.catch(() => undefined);
    this.closeRun();
  }

  /**
   * While this gateway runs jobs on a shared database, their leases are renewed every third of a
   * lease, so the other instances leave them alone; a dead instance's lapse.
   */
  private keepRenewing(): void {
    if (!this.shared || this.renewal) return;
    this.renewal = setInterval(() => {
      if (![...this.live.values()].some((live) => !live.ended)) {
        clearInterval(this.renewal!);
        this.renewal = null;
        return;
      }
      this.repo
        .renewLeases(this.owner.run, this.leaseMs, this.now())
        .catch((error: unknown) => this.log(`job leases not renewed: ${String(error)}`));
    }, this.leaseMs / 3);
    this.renewal.unref();
  }

  private async start(
    id: string,
    keyId: string,
    requestId: string,
    createdAt: number,
    object: Json,
  ): Promise<AbortSignal> {
    await this.repo.purge(createdAt);
    await this.repo.insert(
      {
        id,
        apiKeyId: keyId,
        requestId,
        status: 'queued',
        createdAt,
        finishedAt: null,
        expiresAt: createdAt + JOB_RETENTION_MS,
        response: JSON.stringify(object),
      },
      { owner: this.owner, leaseMs: this.leaseMs, now: createdAt },
    );
    const controller = new AbortController();
    this.live.set(id, {
      id,
      controller,
      listeners: new Set(),
      nextSequence: 0,
      status: 'queued',
      object,
      unwritten: new Map(),
      writes: Promise.resolve(),
      ended: false,
    });
    this.watchCancels();
    this.keepRenewing();
    return controller.signal;
  }

  /** The job, while it takes events: after a cancel the relay may still pass on what was in flight. */
  private accepting(id: string): LiveJob | null {
    const live = this.live.get(id);
    return !live || live.ended || live.status === 'cancelled' ? null : live;
  }

  /** Writes a numbered event (queued) and passes it to the followers. */
  private keep(live: LiveJob, event: JobEvent): void {
    live.unwritten.set(event.sequenceNumber, event);
    this.write(live, async () => {
      await this.repo.addEvent(live.id, event.sequenceNumber, event.data);
      live.unwritten.delete(event.sequenceNumber);
    });
    for (const listener of live.listeners) listener(event);
  }

  private record(id: string, data: Json): void {
    const live = this.accepting(id);
    if (!live) return;
    const type = String(data.type ?? '');
    const sequenceNumber = live.nextSequence++;
    data.sequence_number = sequenceNumber;
    const response = data.response as Json | undefined;
    if (response && typeof response === 'object') {
      response.id = id;
      response.background = true;
    }
    // Followers hear the event before what it ends (an `error` event closes the job).
    this.keep(live, { sequenceNumber, type, data: JSON.stringify(data) });
    const status = STATUS_OF_RESPONSE_EVENT[type];
    if (status && response) {
      if (TERMINAL.has(status)) this.finish(live, status, null, response);
      else this.setStatus(live, status, response);
    } else if (type === 'error') {
      const error = (data.error as Json | undefined) ?? data;
      this.finish(live, 'failed', {
        code: String(error.code ?? 'server_error'),
        message: String(error.message ?? 'the upstream reported an error'),
      });
    }
  }

  private setStatus(live: LiveJob, status: JobStatus, object?: Json): void {
    live.status = status;
    live.object = { ...(object ?? live.object), status };
    const text = JSON.stringify(live.object);
    this.write(live, () => this.repo.update(live.id, status, text, null));
  }

  private finish(live: LiveJob, status: JobStatus, error: JobError | null, object?: Json): void {
    live.status = status;
    live.object = { ...(object ?? live.object), status };
    if (error) live.object.error = error;
    const text = JSON.stringify(live.object);
    const finishedAt = this.now();
    const expiresAt = keptUntil(live.id, finishedAt);
    this.write(live, () => this.repo.update(live.id, status, text, finishedAt, expiresAt));
    if (status === 'cancelled' || status === 'failed') this.closeLive(live);
  }

  /** Queues one write of the job's; a failed write is logged and the next still runs. */
  private write(live: LiveJob, write: () => Promise<void>): void {
    live.writes = live.writes.then(write).catch((error: unknown) => {
      this.log(`job ${live.id}: a write failed (${String(error)})`);
    });
  }

  private closeLive(live: LiveJob): void {
    if (live.ended) return;
    live.ended = true;
    const listeners = [...live.listeners];
    live.listeners.clear();
    for (const listener of listeners) listener(null);
    // Followers that come before the last writes land still find the unwritten events here.
    void live.writes.then(() => {
      if (this.live.get(live.id) === live) this.live.delete(live.id);
    });
  }
}

/** When an ended job's time is up: a studio run's an hour after its end; a response's stays. */
function keptUntil(id: string, finishedAt: number): number | undefined {
  return id.startsWith(STUDIO_RUN_JOB_PREFIX) ? finishedAt + STUDIO_RUN_RETENTION_MS : undefined;
}
