import { randomBytes } from 'node:crypto';
import type { ResponsesRunReply } from '../imageService/types';
import { decodeEvent } from '../bytes/sse';
import { TERMINAL, type JobRow, type JobsRepository, type JobStatus } from './repository';

/** How long a background response is kept after it was made: then GET answers 404. */
export const JOB_RETENTION_MS = 24 * 60 * 60 * 1000;

type Json = Record<string, unknown>;

export interface JobEvent {
  sequenceNumber: number;
  type: string;
  data: string;
}

interface LiveJob {
  controller: AbortController;
  listeners: Set<(event: JobEvent | null) => void>;
  nextSequence: number;
}

const STATUS_OF_EVENT: Record<string, JobStatus> = {
  'response.created': 'in_progress',
  'response.queued': 'queued',
  'response.in_progress': 'in_progress',
  'response.completed': 'completed',
  'response.failed': 'failed',
  'response.incomplete': 'incomplete',
};

/**
 * Background responses (`background: true` on /v1/responses): a job per request, owned by the key
 * that made it, its status and response object in the database, and every event of its stream
 * with its `sequence_number`, so a client can poll it, resume its stream after any event, or
 * cancel it. The request itself runs as any /v1/responses request (one usage row, limits,
 * gallery); only its reply goes into the job instead of onto the connection.
 */
export class ResponseJobs {
  private readonly live = new Map<string, LiveJob>();

  constructor(
    private readonly repo: JobsRepository,
    private readonly now: () => number,
  ) {}

  /** At start: jobs a stopped gateway left unfinished are failed, saying why. */
  failUnfinished(): number {
    const rows = this.repo.unfinished();
    for (const row of rows) {
      this.finish(row, 'failed', {
        code: 'server_error',
        message:
          'The gateway stopped before this response finished; it was not resumed. Its usage record says what was billed.',
      });
    }
    this.repo.purge(this.now());
    return rows.length;
  }

  /** A new job for a validated request: answered at once as `queued`. */
  create(
    keyId: string,
    requestId: string,
    body: Json,
  ): { id: string; signal: AbortSignal; response: Json } {
    this.repo.purge(this.now());
    const id = `resp_${randomBytes(24).toString('hex')}`;
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
    this.repo.insert({
      id,
      apiKeyId: keyId,
      requestId,
      status: 'queued',
      createdAt,
      finishedAt: null,
      expiresAt: createdAt + JOB_RETENTION_MS,
      response: JSON.stringify(response),
    });
    const controller = new AbortController();
    this.live.set(id, { controller, listeners: new Set(), nextSequence: 0 });
    return { id, signal: controller.signal, response };
  }

  /** The job if it exists, is not expired and belongs to `keyId`; else null (a 404). */
  get(keyId: string, id: string): JobRow | null {
    const row = this.repo.get(id);
    if (!row || row.apiKeyId !== keyId || row.expiresAt <= this.now()) return null;
    return row;
  }

  /** Cancels a queued or running job: its upstream work stops. Null when it was already over. */
  cancel(row: JobRow): JobRow | null {
    if (TERMINAL.has(row.status)) return null;
    const live = this.live.get(row.id);
    this.finish(row, 'cancelled', null);
    live?.controller.abort(new Error('cancelled by the client (POST /v1/responses/{id}/cancel)'));
    return this.repo.get(row.id);
  }

  /**
   * Every event after `after`, then each new one until the job ends (`onEvent(null)`). The
   * stored ones are read and the listener added in one turn, so none is missed or repeated.
   */
  follow(id: string, after: number, onEvent: (event: JobEvent | null) => void): () => void {
    for (const stored of this.repo.eventsAfter(id, after)) {
      onEvent({ ...stored, type: typeOf(stored.data) });
    }
    const live = this.live.get(id);
    if (!live) {
      onEvent(null);
      return () => undefined;
    }
    // A caller may name an event not made yet: later events at or before it are skipped too.
    const listener = (event: JobEvent | null) => {
      if (!event || event.sequenceNumber > after) onEvent(event);
    };
    live.listeners.add(listener);
    return () => live.listeners.delete(listener);
  }

  /** Where the job's request writes its reply. */
  reply(id: string): ResponsesRunReply {
    let committed = false;
    return {
      get committed() {
        return committed;
      },
      openEvents: () => {
        committed = true;
        const row = this.repo.get(id);
        if (row && row.status === 'queued') this.setStatus(row, 'in_progress', null);
      },
      event: (pieces) => {
        const block = decodeEvent([...pieces]);
        if (!block) return;
        let data: Json;
        try {
          data = JSON.parse(block.data.toString('utf8')) as Json;
        } catch {
          return;
        }
        this.record(id, data);
      },
      whole: (status, body) => {
        committed = true;
        const row = this.repo.get(id);
        if (!row || TERMINAL.has(row.status)) return;
        let doc: Json = {};
        try {
          doc = JSON.parse(body.toString('utf8')) as Json;
        } catch {
          // reported below as a failure
        }
        if (status === 200 && doc.object === 'response') {
          this.finish(row, 'completed', null, { ...doc, id, background: true });
        } else {
          const error = (doc.error as Json | undefined) ?? {};
          this.finish(row, 'failed', {
            code: String(error.code ?? 'server_error'),
            message: String(error.message ?? `the upstream answered ${status}`),
          });
        }
      },
      end: () => {
        const row = this.repo.get(id);
        if (row && !TERMINAL.has(row.status)) {
          this.finish(row, 'failed', {
            code: 'server_error',
            message: 'The upstream stream ended before the response completed.',
          });
        }
        this.close(id);
      },
    };
  }

  /** The request failed before any event (a refusal, an upstream error): the job says why. */
  fail(id: string, error: { code: string | null; message: string }): void {
    const row = this.repo.get(id);
    if (row && !TERMINAL.has(row.status)) {
      this.finish(row, 'failed', { code: error.code ?? 'server_error', message: error.message });
    }
    this.close(id);
  }

  private record(id: string, data: Json): void {
    const live = this.live.get(id);
    const row = this.repo.get(id);
    // After a cancel the relay may still pass on what was in flight: the job is over.
    if (!live || !row || row.status === 'cancelled') return;
    const type = String(data.type ?? '');
    const sequenceNumber = live.nextSequence++;
    data.sequence_number = sequenceNumber;
    const response = data.response as Json | undefined;
    if (response && typeof response === 'object') {
      response.id = id;
      response.background = true;
    }
    const text = JSON.stringify(data);
    this.repo.addEvent(id, sequenceNumber, text);
    const status = STATUS_OF_EVENT[type];
    if (status && response) {
      if (TERMINAL.has(status)) this.finish(row, status, null, response);
      else this.setStatus(row, status, response);
    } else if (type === 'error') {
      const error = (data.error as Json | undefined) ?? data;
      this.finish(row, 'failed', {
        code: String(error.code ?? 'server_error'),
        message: String(error.message ?? 'the upstream reported an error'),
      });
    }
    for (const listener of live.listeners) listener({ sequenceNumber, type, data: text });
  }

  private setStatus(row: JobRow, status: JobStatus, response: Json | null): void {
    const next = { ...(response ?? (JSON.parse(row.response) as Json)), status };
    this.repo.update(row.id, status, JSON.stringify(next), null);
  }

  private finish(
    row: JobRow,
    status: JobStatus,
    error: { code: string; message: string } | null,
    response?: Json,
  ): void {
    const next: Json = { ...(response ?? (JSON.parse(row.response) as Json)), status };
    if (error) next.error = error;
    this.repo.update(row.id, status, JSON.stringify(next), this.now());
    if (status === 'cancelled' || status === 'failed') this.close(row.id);
  }

  private close(id: string): void {
    const live = this.live.get(id);
    if (!live) return;
    this.live.delete(id);
    for (const listener of live.listeners) listener(null);
  }
}

function typeOf(data: string): string {
  try {
    return String((JSON.parse(data) as Json).type ?? '');
  } catch {
    return '';
  }
}
