import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

/** A running `atelier serve` with the built-in simulator, on its own temp data folder. */
export interface StudioServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The one-time login link the server printed (`studio login:`). */
  loginUrl: string;
  /** The simulator's base URL (its control API is `${simUrl}/__sim/...`). */
  simUrl: string;
  /** Headers for the simulator's control API: this run's credential, chosen by the test. */
  simControl: Record<string, string>;
  dataDir: string;
  /** Everything the server wrote to stderr (its log), for a failing test's report. */
  log(): string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, '../../..');

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `atelier-e2e-${prefix}-`));
}

/**
 * Starts the real CLI exactly as a person would (`node bin/atelier.mjs serve --port 0`), and
 * resolves once it prints `listening on`: the lines above it (upstream, login link) come first.
 */
export async function startStudioServer(
  options: { dataDir?: string; simulatorSpeed?: number; env?: Record<string, string> } = {},
): Promise<StudioServer> {
  const dataDir = options.dataDir ?? tempDir('data');
  const controlToken = randomBytes(24).toString('base64url');
  const child = spawn(
    process.execPath,
    [
      'bin/atelier.mjs',
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--simulator-speed',
      String(options.simulatorSpeed ?? 0.2),
      // Sign-ins wait on a free port: the simulator's issuer takes any loopback redirect, and
      // 1455 may be in use by the vitest suites or another run on this machine.
      '--oauth-callback-port',
      '0',
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ATELIER_SIMULATOR_CONTROL_TOKEN: controlToken,
        ...options.env,
        NO_COLOR: '1',
      },
    },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-200_000);
  });

  const seen: { loginUrl?: string; simUrl?: string; url?: string } = {};
  await new Promise<void>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    const fail = (why: string) => reject(new Error(`atelier serve ${why}\n${stderr}`));
    child.once('exit', (code) => fail(`exited with ${code} before listening`));
    child.once('error', (error) => fail(`did not start: ${error.message}`));
    lines.on('line', (line) => {
      const login = /studio login:\s*(\S+)/.exec(line);
      if (login) seen.loginUrl = login[1];
      const upstream = /upstream:.*\bat (http:\/\/\S+)/.exec(line);
      if (upstream) seen.simUrl = upstream[1];
      const listening = /listening on (http:\/\/\S+)/.exec(line);
      if (listening) {
        seen.url = listening[1];
        child.removeAllListeners('exit');
        resolve();
      }
    });
  });
  if (!seen.loginUrl || !seen.simUrl || !seen.url) {
    child.kill('SIGKILL');
    throw new Error(`atelier serve printed no login link or simulator URL:\n${stderr}`);
  }
  return {
    url: seen.url,
    loginUrl: seen.loginUrl,
    simUrl: seen.simUrl,
    simControl: { 'x-atelier-sim-control': controlToken },
    dataDir,
    log: () => stderr,
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    // A second SIGTERM makes `atelier serve` exit at once; SIGKILL if even that is ignored.
    const hard = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
