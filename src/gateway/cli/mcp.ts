import { parseArgs } from 'node:util';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { resolveDataDir } from '../core/dataDir';
import { savedListenAddress } from '../listenAddress';
import { ArgsError } from './args';
import type { CliIo } from './io';

const USAGE = `usage: atelier mcp [--url http://127.0.0.1:8787] [--key KEY] [--data-dir DIR]

  An MCP server on stdin/stdout for agent hosts that start a command (Claude Desktop, Cursor,
  VS Code, LM Studio). It talks to the running gateway (the app, or \`atelier serve\`): every
  tool call is a request of the key given by --key or ATELIER_KEY, with its limits, budget and
  usage rows. The gateway's address comes from --url, ATELIER_URL, or the address saved in the
  studio's Settings (http://127.0.0.1:8787 until changed). docs/mcp.md has the host snippets.`;

interface McpArgs {
  url: string;
  key: string;
}

async function parseMcpArgs(argv: string[], env: NodeJS.ProcessEnv): Promise<McpArgs | 'help'> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ArgsError((error as Error).message);
  }
  if (values.help) return 'help';
  const key = values.key ?? env.ATELIER_KEY;
  if (!key) {
    throw new ArgsError(
      'needs an Atelier key: --key KEY or ATELIER_KEY. Make one with `npx atelier keys create --name my-agent`.',
    );
  }
  let url = values.url ?? env.ATELIER_URL;
  if (!url) {
    const saved = await savedListenAddress(resolveDataDir(values['data-dir'], env));
    url = `http://${saved.host.includes(':') ? `[${saved.host}]` : saved.host}:${saved.port}`;
  }
  try {
    new URL(url);
  } catch {
    throw new ArgsError(`--url is not a URL: '${url}'`);
  }
  return { url: url.replace(/\/+$/, ''), key };
}

/**
 * `atelier mcp`: a stdio MCP server that is a bridge to the gateway's own `/mcp` endpoint, so the
 * tools exist once, in the gateway, and a stdio host gets exactly what an HTTP host gets
 * (progress, cancellation, the same refusals). Messages pass through unchanged both ways.
 */
export async function runMcpCommand(argv: string[], io: CliIo): Promise<number> {
  let args: McpArgs | 'help';
  try {
    args = await parseMcpArgs(argv, io.env);
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    io.stderr(`atelier mcp: ${error.message}\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  const { url, key } = args;
  // Said now rather than at the host's first tool call: a host shows a server's stderr.
  try {
    const status = await fetch(`${url}/api/status`, { signal: AbortSignal.timeout(5_000) });
    if (!status.ok) throw new Error(`HTTP ${status.status}`);
  } catch (error) {
    io.stderr(
      `atelier mcp: no Atelier gateway answers at ${url} (${(error as Error).message}). Start one with ` +
        '`npx atelier serve` in the project folder (or open the Atelier app), or give its address with --url.',
    );
    return 1;
  }

  // Loaded here, not at the top: every `atelier` command is one bundle, and `atelier serve` should
  // not carry the MCP SDK it never uses (http/mcpRoute.ts).
  const [{ StreamableHTTPClientTransport }, { StdioServerTransport }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const { isJSONRPCRequest, isJSONRPCResultResponse } = types;
  const remote = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const local = new StdioServerTransport();
  const pendingInitialize = new Set<string | number>();
  let finished: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (finished = resolve));

  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') {
      pendingInitialize.add(message.id);
    }
    remote.send(message).catch((error: Error) => {
      io.stderr(`atelier mcp: ${error.message}`);
      // A request must get an answer, or the host waits for it forever.
      if (isJSONRPCRequest(message)) {
        void local.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32603, message: `Atelier gateway at ${url}: ${error.message}` },
        });
      }
    });
  };
  remote.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCResultResponse(message) && pendingInitialize.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') remote.setProtocolVersion(version);
    }
    void local.send(message);
  };
  remote.onerror = (error) => io.stderr(`atelier mcp: ${error.message}`);
  local.onclose = () => {
    void remote
      .terminateSession()
      .catch(() => undefined)
      .finally(() => void remote.close().finally(() => finished(0)));
  };
  // The host ends the server by closing its stdin (or with a signal).
  process.stdin.once('end', () => void local.close());
  io.onSignal('SIGINT', () => void local.close());
  io.onSignal('SIGTERM', () => void local.close());
  await remote.start();
  await local.start();
  io.stderr(`atelier mcp: serving the tools of ${url}/mcp on stdio`);
  return done;
}
