import type http from 'node:http';
import type { Agent } from 'undici';
import type { Simulator } from '../simulator';
import type { Db } from './storage/db';

/** What a gateway stops, in the order it stops them. */
export interface ShutdownParts {
  server: http.Server;
  /** /healthz turns 503 `draining` and new /v1 requests are refused (http/drain.ts). */
  startDraining: () => void;
  /** The least time the drain lasts before the port closes (GatewayConfig.drainNoticeMs). */
  drainNoticeMs: number;
  /** OAuth sign-ins still waiting for the browser. */
  cancelSignIns: () => void;
  /** The MCP sessions' open streams (/mcp): their tool calls' /v1 requests drain like any. */
  closeMcpSessions?: () => Promise<void>;
  /** Resolves once no request is in flight, or after the grace period (the rest are cancelled). */
  drainRequests: (graceMs: number) => Promise<void>;
  /** Resolves once every image the gallery holds for a finished request is on disk. */
  drainGallery: () => Promise<void>;
  /** The signed-URL images of `response_format: "url"`. */
  closeUrlImages: () => Promise<void>;
  /** The upstream connection pool, when the gateway made it (else its owner closes it). */
  ownAgent: Agent | null;
  simulator: Simulator | null;
  /** The usage writer's run is over (after the last request was written). */
  closeUsage: () => Promise<void>;
  db: Db;
}

/**
 * The gateway's graceful stop, once however often it is asked for: the drain (/healthz answers
 * 503 `draining` and new /v1 work is refused, while the server still listens so a load balancer
 * can see it), sign-ins cancelled, requests given their grace, then no more connections, the
 * gallery's writes, and only then what they write to (the pools, the simulator, the usage run,
 * the database).
 */
export function shutdownSequence(parts: ShutdownParts): (graceMs: number) => Promise<void> {
  let closing: Promise<void> | null = null;
  const { server } = parts;
  return (graceMs) =>
    (closing ??= (async () => {
      parts.startDraining();
      // Idle keep-alive connections go now; a client's next request opens a new one, which
      // learns of the drain (and a balancer's health check sees it).
      server.closeIdleConnections();
      parts.cancelSignIns();
      await Promise.all([parts.drainRequests(graceMs), noticePeriod(parts.drainNoticeMs)]);
      await parts.closeMcpSessions?.();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
      // Every request is over, so every image it kept is queued: let them reach the disk.
      await parts.drainGallery();
      await parts.closeUrlImages();
      if (parts.ownAgent) await parts.ownAgent.close();
      if (parts.simulator) await parts.simulator.close();
      await parts.closeUsage();
      parts.db.close();
    })());
}

function noticePeriod(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
