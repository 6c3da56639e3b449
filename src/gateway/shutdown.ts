import type http from 'node:http';

/** What the HTTP part's stop works through. */
export interface ServerStopParts {
  server: http.Server;
  /** /healthz turns 503 `draining` and new /v1 requests are refused (http/drain.ts). */
  startDraining: () => void;
  /** The least time the drain lasts before the port closes (GatewayConfig.drainNoticeMs). */
  drainNoticeMs: number;
  /** Resolves once no request is in flight, or after the grace period (the rest are cancelled). */
  drainRequests: (graceMs: number) => Promise<void>;
}

/**
 * The HTTP part's stop, the first of a gateway's (parts.ts: it started last): the drain (/healthz
 * answers 503 `draining` and new /v1 work is refused, while the server still listens so a load
 * balancer can see it), requests given their grace, then no more connections. The parts started
 * before it (MCP sessions, sign-ins and the gallery's writes, the pools, the usage run, the
 * database) stop after it, in the reverse of their start order.
 */
export function serverStop(parts: ServerStopParts): (graceMs: number) => Promise<void> {
  const { server } = parts;
  return async (graceMs) => {
    parts.startDraining();
    // Idle keep-alive connections go now; a client's next request opens a new one, which
    // learns of the drain (and a balancer's health check sees it).
    server.closeIdleConnections();
    await Promise.all([parts.drainRequests(graceMs), noticePeriod(parts.drainNoticeMs)]);
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await stopped;
  };
}

function noticePeriod(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
