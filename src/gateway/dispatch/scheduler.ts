/**
 * Concurrency slots over upstream accounts. A request weighs by its size (sizeClass.ts) against each
 * account's capacity; the best account is the highest tier, then the least loaded, then the least
 * recently used. When nothing fits, requests wait in one FIFO queue, bounded in time and length.
 */
export interface SchedulableAccount {
  id: string;
  capacity: number;
  /** Higher is preferred (tier rank). */
  rank: number;
}

export interface LeaseRequest {
  /** The accounts this request may use right now (re-read on every attempt: cooldowns end). */
  candidates: () => SchedulableAccount[];
  weight: number;
  signal?: AbortSignal;
}

export interface Lease {
  accountId: string;
  release(): void;
}

export class QueueTimeoutError extends Error {
  constructor(readonly waitedMs: number) {
    super(`every upstream account was busy for ${Math.round(waitedMs / 1000)} s`);
  }
}

export class QueueFullError extends Error {
  constructor(readonly length: number) {
    super(`${length} requests are already waiting for an upstream account`);
  }
}

interface Waiter {
  req: LeaseRequest;
  since: number;
  resolve: (lease: Lease) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface SchedulerOptions {
  maxWaitMs: number;
  maxQueue: number;
  /** After this long at the head, a big request stops smaller ones from overtaking it. */
  headPriorityMs: number;
  now?: () => number;
}

export class Scheduler {
  private readonly load = new Map<string, number>();
  private readonly lastUsed = new Map<string, number>();
  private readonly queue: Waiter[] = [];
  private tick: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  private sequence = 0;

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? Date.now;
  }

  loadOf(accountId: string): number {
    return this.load.get(accountId) ?? 0;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /**
   * A lease as soon as one fits. The request joins the back of the queue and the queue is served
   * at once, so it starts now when its accounts are free (even behind other groups' backlog) and
   * never takes an account that a long-waiting request ahead of it is owed.
   */
  acquire(req: LeaseRequest): Promise<Lease> {
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new QueueFullError(this.queue.length));
    }
    return new Promise<Lease>((resolve, reject) => {
      const waiter: Waiter = {
        req,
        since: this.now(),
        resolve,
        reject,
        timer: setTimeout(
          () => this.drop(waiter, new QueueTimeoutError(this.now() - waiter.since)),
          this.options.maxWaitMs,
        ),
      };
      req.signal?.addEventListener(
        'abort',
        () => this.drop(waiter, new Error('cancelled while waiting')),
        { once: true },
      );
      this.queue.push(waiter);
      this.pump();
      if (this.queue.includes(waiter)) this.ensureTick();
    });
  }

  /**
   * Serves waiters in order. A later request may pass one that does not fit yet (a small image
   * beside a waiting 4K one), but once a request has waited `headPriorityMs` its accounts are
   * reserved for it: nobody behind it takes them, while other accounts stay free to use.
   */
  private pump(): void {
    const reserved = new Set<string>();
    for (let i = 0; i < this.queue.length;) {
      const waiter = this.queue[i]!;
      const lease = this.grant(waiter.req, reserved);
      if (lease) {
        this.queue.splice(i, 1);
        clearTimeout(waiter.timer);
        waiter.resolve(lease);
        continue;
      }
      if (this.now() - waiter.since >= this.options.headPriorityMs) {
        for (const candidate of waiter.req.candidates()) reserved.add(candidate.id);
      }
      i++;
    }
    if (this.queue.length === 0 && this.tick) {
      clearInterval(this.tick);
      this.tick = null;
    }
  }

  private grant(req: LeaseRequest, reserved: ReadonlySet<string>): Lease | null {
    const open = req.candidates().filter((c) => !reserved.has(c.id));
    const chosen = this.choose(open, req.weight);
    if (!chosen) return null;
    this.load.set(chosen.id, this.loadOf(chosen.id) + req.weight);
    this.lastUsed.set(chosen.id, ++this.sequence);
    let released = false;
    return {
      accountId: chosen.id,
      release: () => {
        if (released) return;
        released = true;
        this.load.set(chosen.id, Math.max(0, this.loadOf(chosen.id) - req.weight));
        this.pump();
      },
    };
  }

  private choose(candidates: SchedulableAccount[], weight: number): SchedulableAccount | null {
    const sorted = [...candidates].sort(
      (a, b) =>
        b.rank - a.rank ||
        this.loadOf(a.id) / a.capacity - this.loadOf(b.id) / b.capacity ||
        (this.lastUsed.get(a.id) ?? 0) - (this.lastUsed.get(b.id) ?? 0),
    );
    // An idle account takes a request heavier than its whole capacity: otherwise a 4K image
    // could never run on a small account.
    return (
      sorted.find((a) => this.loadOf(a.id) + weight <= a.capacity || this.loadOf(a.id) === 0) ??
      null
    );
  }

  private drop(waiter: Waiter, error: Error): void {
    const index = this.queue.indexOf(waiter);
    if (index < 0) return;
    this.queue.splice(index, 1);
    clearTimeout(waiter.timer);
    waiter.reject(error);
  }

  /** Cooldowns end without a release to wake the queue; a slow tick covers that. */
  private ensureTick(): void {
    if (this.tick) return;
    this.tick = setInterval(() => this.pump(), 500);
    this.tick.unref();
  }
}
