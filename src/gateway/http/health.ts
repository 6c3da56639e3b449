import type { Request, Response } from 'express';
import type { StorageHealth } from '../storage/health';
import type { Drain } from './drain';

/**
 * GET /healthz's body. Only states, never a path, an address, a key or an error's text: the
 * endpoint answers without a key (a load balancer has none).
 */
export interface HealthReport {
  status: 'ok' | 'draining' | 'unavailable';
  database: 'reachable' | 'unreachable';
  migrations: StorageHealth['migrations'];
  /** Whether new /v1 requests are taken (false while draining). */
  accepting: boolean;
}

export function healthReport(storage: StorageHealth, draining: boolean): HealthReport {
  const database = storage.reachable ? 'reachable' : 'unreachable';
  const healthy = storage.reachable && storage.migrations === 'current';
  const status = draining ? 'draining' : healthy ? 'ok' : 'unavailable';
  return { status, database, migrations: storage.migrations, accepting: !draining && healthy };
}

/**
 * GET /healthz, for a load balancer: 200 when the database answers, its schema is this build's
 * and the gateway takes work; 503 otherwise, with the same body saying which. Behind the Host
 * guard like every route, never cached.
 */
export function healthRoute(deps: { storage: () => Promise<StorageHealth>; drain: Drain }) {
  return async (_req: Request, res: Response): Promise<void> => {
    const report = healthReport(await deps.storage(), deps.drain.draining);
    res.setHeader('cache-control', 'no-store');
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  };
}
