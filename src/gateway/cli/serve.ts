import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGateway, savedListenAddress } from '../index';
import { resolveDataDir } from '../core/dataDir';
import { isLoopbackHost } from '../http/hostGuard';
import { SecretStoreError } from '../secrets/errors';
import { resolveCallbackPort } from '../oauth/callbackPort';
import { ArgsError } from './args';
import { databaseUrlOf } from './databaseUrl';
import type { CliIo } from './io';
import { servingLines } from './servingLines';
import { ensureStudio, type StudioBuildDeps } from './studioBuild';

const USAGE = `usage: atelier serve [--host HOST] [--port PORT] [--data-dir DIR]
                     [--database postgres://...] [--upstream-url URL] [--simulator-speed 1]
                     [--allow-origin ORIGIN ...] [--oauth-callback-port 1455] [--drain-seconds 0]

  --host and --port default to the address saved in the studio's Settings (127.0.0.1 and 8787
  until one is saved); --port 0 picks a free port. Without --upstream-url the built-in offline
  simulator serves images.
  --database URL (or ATELIER_DATABASE_URL): keep everything in this PostgreSQL database instead
  of the SQLite file in the data folder, so several instances serve as one team gateway
  (docs/team.md). Without it nothing changes: the data folder's atelier.db, as the desktop app.
  The upstream key for --upstream-url is read from ATELIER_UPSTREAM_API_KEY.
  --oauth-callback-port (or ATELIER_OAUTH_CALLBACK_PORT): where account sign-ins started from the
  studio wait for the browser, http://localhost:PORT/auth/callback. The default 1455 is the
  redirect the default sign-in client is registered with; change it only when that port is taken
  by another program or your issuer accepts another redirect. 0 picks a free port.
  --drain-seconds N: on SIGTERM, answer /healthz 503 "draining" (and new /v1 work 503) for at
  least N seconds before closing, so a load balancer's health check sees the drain even when
  nothing is in flight (docs/operations.md). In-flight requests still get up to 30 s.
  The simulator's control routes (/__sim/*, for tests) need a credential that is random per run;
  a test that starts serve may choose it with ATELIER_SIMULATOR_CONTROL_TOKEN.`;

/**
 * The gateway, or null when its secrets cannot be opened as configured (a wrong or missing
 * secret key): that is said in one line, without a stack, since the person starting it fixes it.
 */
async function startGateway(
  io: CliIo,
  config: Parameters<typeof createGateway>[0],
): Promise<Awaited<ReturnType<typeof createGateway>> | null> {
  try {
    return await createGateway(config);
  } catch (error) {
    if (!(error instanceof SecretStoreError)) throw error;
    io.stderr(`atelier serve: ${error.message}`);
    return null;
  }
}

/** The built studio sits beside the bundled CLI (out/node/cli.mjs -> out/renderer). */
function studioDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'renderer');
}

/** `atelier serve`'s options, checked; `help` when asked for the usage. */
export type ServeArgs =
  | { help: true }
  | {
      help: false;
      /** Undefined: the address saved in Settings. */
      host: string | undefined;
      port: number | undefined;
      dataDir: string;
      /** A PostgreSQL URL; undefined: the SQLite file in the data folder. */
      databaseUrl: string | undefined;
      allowedOrigins: string[];
      upstreamUrl: string | undefined;
      simulatorSpeed: number | undefined;
      oauthCallbackPort: number | undefined;
      /** How long a stop keeps answering 503 before it closes (ms); undefined: 0. */
      drainNoticeMs: number | undefined;
    };

/** Parses and checks the flags (the environment fills in what they leave out); throws ArgsError. */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv): ServeArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        database: { type: 'string' },
        'upstream-url': { type: 'string' },
        'simulator-speed': { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        'oauth-callback-port': { type: 'string' },
        'drain-seconds': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ArgsError((error as Error).message);
  }
  if (values.help) return { help: true };
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new ArgsError(`--port must be an integer from 0 to 65535, got '${values.port}'`);
  }
  const speed =
    values['simulator-speed'] === undefined ? undefined : Number(values['simulator-speed']);
  if (speed !== undefined && !(speed >= 0)) {
    throw new ArgsError('--simulator-speed must be a number >= 0');
  }
  const drainSeconds =
    values['drain-seconds'] === undefined ? undefined : Number(values['drain-seconds']);
  if (drainSeconds !== undefined && !(drainSeconds >= 0 && drainSeconds <= 600)) {
    throw new ArgsError('--drain-seconds must be a number of seconds from 0 to 600');
  }
  let oauthCallbackPort: number | undefined;
  try {
    oauthCallbackPort = resolveCallbackPort(values['oauth-callback-port'], env);
  } catch (error) {
    throw new ArgsError((error as Error).message);
  }
  return {
    help: false,
    host: values.host,
    port,
    dataDir: resolveDataDir(values['data-dir'], env),
    databaseUrl: databaseUrlOf(values.database, env),
    allowedOrigins: values['allow-origin'] ?? [],
    upstreamUrl: values['upstream-url'],
    simulatorSpeed: speed,
    oauthCallbackPort,
    drainNoticeMs: drainSeconds === undefined ? undefined : Math.round(drainSeconds * 1000),
  };
}

export async function runServeCommand(
  argv: string[],
  io: CliIo,
  /** Where the built studio is, and how to build it when it is not (tests pass their own). */
  studio: { dir: string; build?: StudioBuildDeps } = { dir: studioDir() },
): Promise<number> {
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv, io.env);
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    io.stderr(`atelier serve: ${error.message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stdout(USAGE);
    return 0;
  }
  const { dataDir } = args;
  const saved =
    args.host === undefined || args.port === undefined
      ? await savedListenAddress(dataDir, args.databaseUrl)
      : null;
  const host = args.host ?? saved!.host;
  const port = args.port ?? saved!.port;
  if (!isLoopbackHost(host)) {
    io.stderr(
      `warning: binding to ${host} exposes the gateway beyond this machine. Every /v1 call still needs a key.`,
    );
  }

  const studioState = ensureStudio(studio.dir, (line) => io.stderr(line), studio.build);
  const gateway = await startGateway(io, {
    host,
    port,
    dataDir,
    databaseUrl: args.databaseUrl,
    staticDir: studio.dir,
    allowedOrigins: args.allowedOrigins,
    upstreamBaseUrl: args.upstreamUrl,
    upstreamApiKey: io.env.ATELIER_UPSTREAM_API_KEY,
    simulatorSpeed: args.simulatorSpeed,
    oauthCallbackPort: args.oauthCallbackPort,
    drainNoticeMs: args.drainNoticeMs,
    simulatorControlToken: io.env.ATELIER_SIMULATOR_CONTROL_TOKEN || undefined,
    log: (line) => io.stderr(line),
  });
  if (!gateway) return 1;
  const url = await gateway.listen();
  // The listening line comes last: scripts wait for it, and then everything above is printed.
  io.stdout(`  data:     ${dataDir}`);
  for (const line of servingLines({
    accounts: gateway.servingAccounts(),
    simulatorUrl: gateway.simulator?.url ?? null,
    now: Date.now(),
  }))
    io.stdout(line);
  let stopLines: (() => void) | null = null;
  if (studioState.kind === 'missing') {
    // No login link to a page that is not there: the API still serves.
    io.stdout(
      `  studio:   not served: ${studioState.reason}; run \`npm run build\` in the project folder`,
    );
  } else {
    io.stdout(`  studio:   ${url}/`);
    // Opens the studio in a browser, once, within 10 minutes.
    const printLogin = async () =>
      io.stdout(`  studio login: ${await gateway.createStudioLogin()}`);
    await printLogin();
    // Another browser, a closed one, or a link that expired unopened: a fresh link for the
    // person at this terminal, without restarting (and cutting off) the gateway.
    stopLines =
      io.onTerminalLine?.(() => {
        printLogin().catch((error: unknown) =>
          io.stderr(
            `  no studio login link: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      }) ?? null;
    if (stopLines) io.stdout('  (press Enter here for a new studio login link)');
  }
  // Signals are handled before the listening line goes out: a script that stops the gateway as
  // soon as it reads that line (tests, supervisors) must find the graceful stop already in place.
  const stopped = new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        io.stderr(`${signal} again: exiting now.`);
        resolve(130);
        io.exitNow?.(130);
        return;
      }
      stopping = true;
      stopLines?.();
      io.stderr(`${signal}: finishing in-flight requests (Ctrl+C again to exit at once)...`);
      void gateway.close().then(() => {
        io.stderr('stopped.');
        resolve(0);
      });
    };
    io.onSignal('SIGINT', () => stop('SIGINT'));
    io.onSignal('SIGTERM', () => stop('SIGTERM'));
  });
  io.stdout(`Atelier gateway listening on ${url}`);
  return stopped;
}
