import type http from 'node:http';
import { createApp, type AppDeps, type V1Admission } from './http/app';
import { createDrain } from './http/drain';
import { createHttpServer } from './http/server';
import { DEFAULT_CLIENT_TIMEOUTS } from './http/slowClients';
import { serverStop } from './shutdown';

/**
 * The HTTP part, the last to start and so the first to stop: the app over the other parts'
 * pieces, its server, and the drain that stop begins with (shutdown.ts).
 */
export function composeHttp(deps: {
  /** createApp's groups; the drain is made here, since this part's stop is what starts it. */
  app: Omit<AppDeps, 'v1'> & { v1: Omit<V1Admission, 'drain'> };
  /** Binds the server to the configured host and port (http/address.ts). */
  listen: (server: http.Server) => Promise<string>;
  /** The least time the drain lasts before the port closes (GatewayConfig.drainNoticeMs). */
  drainNoticeMs: number;
}) {
  const drain = createDrain();
  const { v1 } = deps.app;
  const app = createApp({ ...deps.app, v1: { ...v1, drain } });
  const server = createHttpServer(app, deps.app.guards.clientTimeouts ?? DEFAULT_CLIENT_TIMEOUTS);
  return {
    listen: () => deps.listen(server),
    stop: serverStop({
      server,
      startDraining: () => drain.start(),
      drainNoticeMs: deps.drainNoticeMs,
      drainRequests: (graceMs) => v1.inflight.drain(graceMs),
    }),
  };
}
