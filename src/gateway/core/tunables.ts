/*
 * The gateway's fixed tunables, in one place: numbers chosen once (docs/dispatch.md,
 * docs/operations.md) rather than settings a user changes.
 */

/** How long `close()` lets in-flight requests finish before it cancels and records them. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;

/** Retry-After of a /v1 request refused while the gateway drains (docs/operations.md). */
export const DRAIN_RETRY_AFTER_S = 5;

/**
 * The one connection pool for all upstream calls. Timeouts are per request (they depend on
 * size), and the connection itself never times a long image out.
 */
export const UPSTREAM_AGENT = {
  connections: 64,
  keepAliveTimeout: 30_000,
  headersTimeout: 0,
  bodyTimeout: 0,
} as const;

/** The dispatch queue: how long a request may wait, how many may, and the head's priority. */
export const SCHEDULER = { maxWaitMs: 30_000, maxQueue: 256, headPriorityMs: 2_000 } as const;

/** Capacity (weight units) of the implicit account that serves while none is configured. */
export const IMPLICIT_ACCOUNT_CAPACITY = 16;
