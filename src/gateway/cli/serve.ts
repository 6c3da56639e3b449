import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGateway } from '../index';
import { resolveDataDir } from '../dataDir';
import { isLoopbackHost } from '../http/hostGuard';
import type { CliIo } from './io';

const USAGE = `usage: atelier serve [--host 127.0.0.1] [--port 8787] [--data-dir DIR]
                     [--upstream-url URL] [--simulator-speed 1] [--allow-origin ORIGIN ...]

  --port 0 picks a free port. Without --upstream-url the built-in offline simulator serves images.
  The upstream key for --upstream-url is read from ATELIER_UPSTREAM_API_KEY.`;

/** The built studio sits beside the bundled CLI (out/node/cli.mjs -> out/renderer). */
function studioDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'renderer');
}

export async function runServeCommand(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '8787' },
        'data-dir': { type: 'string' },
        'upstream-url': { type: 'string' },
        'simulator-speed': { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr(`atelier serve: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr(`atelier serve: --port must be an integer from 0 to 65535, got '${values.port}'`);
    return 2;
  }
  const speed =
    values['simulator-speed'] === undefined ? undefined : Number(values['simulator-speed']);
  if (speed !== undefined && !(speed >= 0)) {
    io.stderr('atelier serve: --simulator-speed must be a number >= 0');
    return 2;
  }
  const host = values.host;
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  if (!isLoopbackHost(host)) {
    io.stderr(
      `warning: binding to ${host} exposes the gateway beyond this machine. Every /v1 call still needs a key.`,
    );
  }

  const gateway = await createGateway({
    host,
    port,
    dataDir,
    staticDir: studioDir(),
    allowedOrigins: values['allow-origin'] ?? [],
    upstreamBaseUrl: values['upstream-url'],
    upstreamApiKey: io.env.ATELIER_UPSTREAM_API_KEY,
    simulatorSpeed: speed,
    log: (line) => io.stderr(line),
  });
  const url = await gateway.listen();
  const upstream = gateway.simulator
    ? `Offline simulator (built-in, no upstream account configured) at ${gateway.simulator.url}`
    : values['upstream-url'];
  // The listening line comes last: scripts wait for it, and then everything above is printed.
  io.stdout(`  data:     ${dataDir}`);
  io.stdout(`  upstream: ${upstream}`);
  io.stdout(`  studio:   ${url}/`);
  // Opens the studio in a browser, once, within 10 minutes (restart for a new one).
  io.stdout(`  studio login: ${gateway.createStudioLogin()}`);
  io.stdout(`Atelier gateway listening on ${url}`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        io.stderr(`${signal} again: exiting now.`);
        resolve(130);
        return;
      }
      stopping = true;
      io.stderr(`${signal}: finishing in-flight requests (Ctrl+C again to exit at once)...`);
      void gateway.close().then(() => {
        io.stderr('stopped.');
        resolve(0);
      });
    };
    io.onSignal('SIGINT', () => stop('SIGINT'));
    io.onSignal('SIGTERM', () => stop('SIGTERM'));
  });
}
