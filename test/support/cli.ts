import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { registerSimulator } from './gateway';

const BIN = path.resolve('bin/atelier.mjs');

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { status: number; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}

/**
 * runCli without blocking this process: for tests that also hold HTTP connections, which a
 * stalled event loop can leave pooled after their server closed them (ECONNRESET on reuse).
 */
export function runCliAsync(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { encoding: 'utf8', env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `atelier serve` and resolves once it prints its listening line. */
export function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  // The simulator's control routes need this run's credential: the test chooses it.
  const controlToken = randomBytes(24).toString('base64url');
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, ATELIER_SIMULATOR_CONTROL_TOKEN: controlToken, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      const simUrl = /Offline simulator \(.*\) at (http:\/\/\S+)/.exec(output)?.[1];
      if (simUrl) registerSimulator(simUrl, controlToken);
      resolve({ child, url: match[1]!, output: () => output, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`atelier serve exited with ${code}:\n${output}`)));
  });
}

/** Resolves once `read()` is true, checking every 25 ms (a condition, not a fixed wait). */
export async function until(read: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!read()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
