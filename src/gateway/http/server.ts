import http from 'node:http';
import type { Express } from 'express';
import { headersCheckIntervalMs, type ClientTimeouts } from './slowClients';

/** The HTTP server around the app, with the timeouts a multi-minute image needs. */
export function createHttpServer(app: Express, clientTimeouts: ClientTimeouts): http.Server {
  const server = http.createServer(
    { connectionsCheckingInterval: headersCheckIntervalMs(clientTimeouts) },
    app,
  );
  // Node's default 5-minute request timeout would cut a legitimate 4K generation (spec 7.1):
  // slow senders are bounded per phase instead (http/slowClients.ts).
  server.requestTimeout = 0;
  server.timeout = 0;
  server.headersTimeout = clientTimeouts.headersMs;
  server.keepAliveTimeout = clientTimeouts.keepAliveMs;
  return server;
}
