import { randomFillSync } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { AuthenticatedKey } from '../keys/authenticator';
import type { UsageNotes } from '../usage/notes';

/** What the scope watches of its response: node's `ServerResponse` has it. */
interface ClosingResponse {
  once(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
}

/** The error a request was answered with, for its usage record. */
export interface AnsweredError {
  code: string | null;
  message: string;
}

/**
 * One request's life, in one object: what the middleware learns about the request, what the
 * handler runs, and what runs once it is over. It is the only thing in `res.locals`, each fact has
 * one method that sets it, and every fact but the final error is set at most once.
 *
 * When a request ends (its response closed and its registered work settled), the functions given
 * to `afterWork` run in the order they were given: for /v1, the usage record is written (and with
 * it the key's limits charged and the gallery's images confirmed), the shutdown's count of
 * requests in flight goes down, the studio run stops being cancellable, the key's concurrency slot
 * is freed.
 */
export class RequestScope {
  private notes: UsageNotes | null = null;
  private stopSignal: AbortSignal | null = null;
  private caller: AuthenticatedKey | null = null;
  private studio = false;
  private parent: string | null = null;
  private answer: AnsweredError | null = null;
  private pending: Promise<unknown> | null = null;
  private after: Array<() => void | Promise<void>> | null = null;
  private finished = false;
  private background = false;

  constructor(
    /** The request's id (`x-request-id`), the key into the usage log. */
    readonly id: string,
    readonly startedAt: number,
    private readonly res: ClosingResponse,
  ) {}

  /** The request's usage notes (every POST under /v1 has them: the usage recorder opens them). */
  recordInto(notes: UsageNotes): void {
    if (this.notes) throw new Error('the request already has usage notes');
    this.notes = notes;
  }

  get usage(): UsageNotes {
    if (!this.notes) throw new Error('no usage notes: the route is not behind the usage recorder');
    return this.notes;
  }

  get hasUsage(): boolean {
    return this.notes !== null;
  }

  /**
   * The request's work also stops when `signal` aborts: the shutdown's (the usage recorder) and
   * a studio Cancel (studioRuns.ts) are joined.
   */
  stopOn(signal: AbortSignal): void {
    this.stopSignal = this.stopSignal ? AbortSignal.any([this.stopSignal, signal]) : signal;
  }

  /** Aborted when the request's work must stop. Only routes behind the recorder read it. */
  get signal(): AbortSignal {
    if (!this.stopSignal)
      throw new Error('no request signal: the route is not behind the recorder');
    return this.stopSignal;
  }

  /** The key the request runs under, once (auth.ts); the studio's session stands for its key. */
  authenticate(key: AuthenticatedKey, studioSession: boolean): void {
    if (this.caller) throw new Error('the request is already authenticated');
    this.caller = key;
    this.studio = studioSession;
    this.notes?.authenticated(key);
  }

  get key(): AuthenticatedKey {
    if (!this.caller) throw new Error('no API key: the route is not behind the key check');
    return this.caller;
  }

  /** The key, before the key check has run (or when it refused): null. */
  get keyIfAny(): AuthenticatedKey | null {
    return this.caller;
  }

  /** The studio's own session stands for the built-in Studio key. */
  get studioSession(): boolean {
    return this.studio;
  }

  /** The gallery image an edit was made from (`x-atelier-parent-image`, galleryPort.ts). */
  madeFrom(imageId: string): void {
    if (this.parent !== null) throw new Error('the request already names its parent image');
    this.parent = imageId;
  }

  get parentImageId(): string | null {
    return this.parent;
  }

  /**
   * The error the request was answered with (the error handler, an event stream's error event, a
   * stalled body's 408), for the usage record. The last answer is the one the caller saw.
   */
  answered(error: AnsweredError): void {
    this.answer = { code: error.code, message: error.message };
  }

  get answeredError(): AnsweredError | null {
    return this.answer;
  }

  /** Whether the client got the whole response: known once the response has closed. */
  get delivered(): boolean {
    return this.finished || this.background;
  }

  /**
   * The request runs as a background job (`background: true` on /v1/responses): what it owes
   * the caller is kept in the job, so leaving the connection is not "client closed".
   */
  runsInBackground(): void {
    this.background = true;
  }

  /**
   * Registers the handler's upstream work (and returns it): it can outlive the response, and what
   * runs after the request waits for it.
   */
  work<T>(work: Promise<T>): Promise<T> {
    this.pending = work;
    return work;
  }

  /** Runs `fn` once the response has closed and the registered work has settled. */
  afterWork(fn: () => void | Promise<void>): void {
    if (this.after) {
      this.after.push(fn);
      return;
    }
    this.after = [fn];
    this.res.once('close', () => this.closed());
  }

  private closed(): void {
    // Whether the client got the whole response is a fact of this moment: the handler may still
    // write (into the closed socket) when its upstream work ends.
    this.finished = this.res.writableFinished;
    const run = () => this.runAfterWork();
    if (this.pending) this.pending.then(run, run);
    else void Promise.resolve().then(run);
  }

  private async runAfterWork(): Promise<void> {
    let failure: { error: unknown } | null = null;
    // One after another, each awaited: the usage record is in the database before the slot and
    // the count of requests in flight go down.
    for (const fn of this.after ?? []) {
      try {
        await fn();
      } catch (error) {
        failure ??= { error };
      }
    }
    // Each one ran; the first failure is still reported (as an unhandled rejection, as before).
    if (failure) throw failure.error;
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The request's scope (`requestId` below makes it): the only key in `res.locals`. */
      scope?: RequestScope;
    }
  }
}

/** The request's scope. Every request has one: the first middleware (`requestId`) makes it. */
export function scopeOf(res: Response): RequestScope {
  const scope = res.locals.scope;
  if (!scope) throw new Error('no request scope: the request did not pass requestId');
  return scope;
}

/** Random bytes for request ids, drawn 12 at a time: one call to the CSPRNG per 341 requests. */
const ID_BYTES = 12;
const idPool = Buffer.alloc(ID_BYTES * 341);
let idPoolAt = idPool.length;

export function newRequestId(): string {
  // A randomBytes call per request cost ~25 us on the request path (its job and a fresh buffer).
  if (idPoolAt + ID_BYTES > idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  idPoolAt += ID_BYTES;
  return `req_${idPool.toString('hex', idPoolAt - ID_BYTES, idPoolAt)}`;
}

/**
 * The first middleware: every request gets its scope (its id and start time), and every response
 * carries `x-request-id`, errors included: it is the key into the usage log.
 */
export function requestId(_req: Request, res: Response, next: NextFunction): void {
  const scope = new RequestScope(newRequestId(), Date.now(), res);
  res.locals.scope = scope;
  res.setHeader('x-request-id', scope.id);
  next();
}
