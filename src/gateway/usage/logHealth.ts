/** Whether the usage log takes writes. */
export type UsageLogState = { writable: true } | { writable: false; reason: string; since: number };

export interface UsageLogHealth {
  readonly state: UsageLogState;
  /** A write failed: the log is unavailable until `retry` succeeds. */
  failed(error: unknown, what: string): void;
  /** Runs the retry on the next tick of its timer (starts the timer if needed). */
  retrySoon(): void;
  /** One last try now (at shutdown), then no more. */
  stop(): Promise<void>;
}

/**
 * Why a write failed, in words for the person who must fix it (the 503's message, the log).
 * better-sqlite3 names SQLite's result codes (`SQLITE_FULL`, `SQLITE_READONLY_*`, ...).
 */
export function writeFailureReason(error: unknown): string {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return `disk full (${message})`;
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return `read-only (${message})`;
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return `I/O error (${message})`;
  return message;
}

/**
 * Tracks the usage log's writability: the first failure makes it unavailable and starts a timer
 * that runs `retry` until it returns without throwing. Unref'd: it never keeps a process alive.
 */
export function createLogHealth(deps: {
  retryMs: number;
  retry: () => Promise<void>;
  log: (line: string) => void;
  now?: () => number;
}): UsageLogHealth {
  let state: UsageLogState = { writable: true };
  let timer: NodeJS.Timeout | null = null;
  const now = deps.now ?? Date.now;

  const succeeded = () => {
    if (timer) clearInterval(timer);
    timer = null;
    if (!state.writable) deps.log('the usage log takes writes again');
    state = { writable: true };
  };

  // One try at a time: a write slower than the timer's period is not started twice.
  let trying: Promise<void> | null = null;
  const tryOnce = async () => {
    try {
      await deps.retry();
    } catch (error) {
      const reason = writeFailureReason(error);
      if (state.writable || state.reason !== reason)
        state = { writable: false, reason, since: now() };
      return;
    }
    succeeded();
  };
  const attempt = () => {
    trying ??= tryOnce().finally(() => {
      trying = null;
    });
    return trying;
  };

  const retrySoon = () => {
    if (timer) return;
    timer = setInterval(() => void attempt(), deps.retryMs);
    timer.unref();
  };

  return {
    get state() {
      return state;
    },
    failed(error, what) {
      const reason = writeFailureReason(error);
      if (state.writable) {
        deps.log(`${what} could not be written: ${reason}; new requests are refused until it can`);
        state = { writable: false, reason, since: now() };
      }
      retrySoon();
    },
    retrySoon,
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      if (trying) await trying;
      if (!state.writable) await attempt();
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
