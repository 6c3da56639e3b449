import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { apiKeyEdits, apiKeyGenerations } from './apiKeyImages';
import type { Ctx, SimState } from './context';
import {
  addFaults,
  clearCalls,
  clearFaults,
  lastEdit,
  listCalls,
  listFaults,
  revokeToken,
  setRefreshTokenState,
} from './control';
import { SimHttpError, SocketReset } from './errors';
import { guardRequest } from './guard';
import { newId, sendJson } from './http';
import { listModels } from './modelsRoute';
import { nativeEdits, nativeGenerations } from './nativeImages';
import { oauthAuthorize, oauthToken } from './oauth';
import { apiKeyResponses, bridgeResponses } from './responsesBridge';

type Handler = (ctx: Ctx) => Promise<void>;
type Method = 'GET' | 'POST' | 'DELETE';

const CODEX = '/backend-api/codex';

const ROUTES: Record<string, Partial<Record<Method, Handler>>> = {
  '/v1/images/generations': { POST: apiKeyGenerations },
  '/v1/images/edits': { POST: apiKeyEdits },
  '/v1/responses': { POST: apiKeyResponses },
  '/v1/models': { GET: listModels },
  [`${CODEX}/images/generations`]: { POST: nativeGenerations },
  [`${CODEX}/images/edits`]: { POST: nativeEdits },
  [`${CODEX}/responses`]: { POST: bridgeResponses },
  '/oauth/authorize': { GET: oauthAuthorize },
  '/oauth/token': { POST: oauthToken },
  '/__sim/faults': { GET: listFaults, POST: addFaults, DELETE: clearFaults },
  '/__sim/calls': { GET: listCalls, DELETE: clearCalls },
  '/__sim/last-edit': { GET: lastEdit },
  '/__sim/revoke': { POST: revokeToken },
  '/__sim/refresh-token-state': { POST: setRefreshTokenState },
};

/**
 * How long an idle connection is kept, told to clients in `Keep-Alive: timeout=65`. Node's own
 * 5 s was far shorter than any real upstream keeps one, and short enough to race: a client that
 * read a large reply slowly (16 4K images at once) counted its idle time from its last read,
 * seconds after the server had counted from its last write, and reused a connection at the very
 * moment the server closed it. Requests were then reset (a benchmark run failed with "other
 * side closed"; the gateway counted the resets against the account). Same as the gateway's own.
 */
const SIMULATOR_KEEP_ALIVE_MS = 65_000;

export function createSimServer(state: SimState, closing: AbortSignal): Server {
  const server = createServer((req, res) => {
    void dispatch(state, closing, req, res);
  });
  server.keepAliveTimeout = SIMULATOR_KEEP_ALIVE_MS;
  return server;
}

async function dispatch(
  state: SimState,
  closing: AbortSignal,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const requestId = newId('req');
  res.setHeader('x-request-id', requestId);
  const client = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) client.abort(new Error('client went away'));
  });
  const ctx: Ctx = {
    req,
    res,
    url: new URL(req.url ?? '/', 'http://simulator.invalid'),
    state,
    requestId,
    signal: AbortSignal.any([client.signal, closing]),
  };
  try {
    guardRequest(ctx);
    const route = ROUTES[ctx.url.pathname];
    if (!route)
      throw new SimHttpError(
        404,
        'invalid_request_error',
        'not_found',
        `Unknown route ${ctx.url.pathname}.`,
      );
    const handler = route[req.method as Method];
    if (!handler) {
      throw new SimHttpError(
        405,
        'invalid_request_error',
        'method_not_allowed',
        `${req.method} is not allowed here.`,
        null,
        {},
        {
          allow: Object.keys(route).join(', '),
        },
      );
    }
    await handler(ctx);
  } catch (error) {
    answerError(ctx, error);
  }
}

/** The one place errors become responses. Mid-stream there is no status left to send: hang up. */
function answerError(ctx: Ctx, error: unknown): void {
  if (error instanceof SocketReset) return;
  if (ctx.res.headersSent || ctx.signal.aborted) {
    ctx.res.destroy();
    return;
  }
  if (error instanceof SimHttpError) {
    sendJson(ctx.res, error.status, error.body(), error.headers);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  sendJson(ctx.res, 500, {
    error: { message, type: 'server_error', param: null, code: 'internal_error' },
  });
}
