import { randomUUID } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpDeps } from '../mcp/server';
import { scopeOf } from './requestScope';
import type { KeyAuthenticator } from '../keys/authenticator';
import { requireApiKey } from './auth';

/**
 * The MCP SDK and its schemas load on the first /mcp request, not at start (here and in
 * mcp/server.ts, as dynamic imports: a bundler hoists a static import of a package to the top of
 * the bundle however lazily its module is reached). They would be a sixth of the gateway's heap
 * after start, and most gateways never serve an agent host.
 */
interface McpModules {
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  isInitializeRequest: typeof isInitializeRequest;
}
let mcpModules: Promise<McpModules> | undefined;
function loadMcpModules(): Promise<McpModules> {
  mcpModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([transport, types]) => ({
    StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
    isInitializeRequest: types.isInitializeRequest,
  }));
  return mcpModules;
}

/** An MCP session is one host's connection: bound to the key that opened it. */
interface Session {
  transport: StreamableHTTPServerTransport;
  keyId: string;
  lastSeen: number;
}

/** A session nobody used for this long is closed when the next one opens. */
const IDLE_MS = 60 * 60 * 1000;
/** Sessions at once, over all keys: a host opens one; a runaway client must not open thousands. */
const MAX_SESSIONS = 200;
/** edit_image may carry its input and mask as base64 (each file under 50 MiB, 4/3 as base64). */
const BODY_LIMIT = '150mb';

export interface McpRoute {
  router: Router;
  /** Closes every session (gateway shutdown). */
  closeAll(): Promise<void>;
}

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (POST for messages, GET for the
 * server's own stream, DELETE to end a session). Behind the app's Host and Origin guards like
 * /v1, and authenticated with an Atelier key like /v1 (the same 401s). Each session runs one MCP
 * server for its key; its tools call /v1 as that key (mcp/server.ts).
 */
export function mcpRoute(deps: {
  keys: KeyAuthenticator;
  mcp: McpDeps;
  now: () => number;
  log: (line: string) => void;
}): McpRoute {
  const sessions = new Map<string, Session>();
  const router = Router();
  router.use(requireApiKey(deps.keys, deps.now));
  router.use(express.json({ limit: BODY_LIMIT }));

  const rpcError = (res: Response, status: number, message: string) => {
    res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  };
  const closeIdle = () => {
    for (const [id, session] of sessions) {
      if (deps.now() - session.lastSeen <= IDLE_MS) continue;
      sessions.delete(id);
      void session.transport.close();
    }
  };

  const handle = async (req: Request, res: Response) => {
    const key = scopeOf(res).key;
    const { StreamableHTTPServerTransport, isInitializeRequest } = await loadMcpModules();
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      // Another key's session is as unknown as a closed one.
      if (!session || session.keyId !== key.id) {
        rpcError(res, 404, 'Session not found: initialize a new one.');
        return;
      }
      session.lastSeen = deps.now();
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      rpcError(res, 400, 'No mcp-session-id: the first request of a session is initialize.');
      return;
    }
    closeIdle();
    if (sessions.size >= MAX_SESSIONS) {
      rpcError(res, 503, `Too many MCP sessions (${MAX_SESSIONS}); close one first.`);
      return;
    }
    const plaintext = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')![1]!;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, keyId: key.id, lastSeen: deps.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = await createMcpServer(deps.mcp, { key: plaintext, keyId: key.id });
    server.onerror = (error) => deps.log(`mcp: ${error.message}`);
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };

  router.post('/', (req, res, next) => void handle(req, res).catch(next));
  router.get('/', (req, res, next) => void handle(req, res).catch(next));
  router.delete('/', (req, res, next) => void handle(req, res).catch(next));

  return {
    router,
    async closeAll() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.transport.close()));
    },
  };
}
