// A team gateway on one machine: N `atelier serve` processes on one PostgreSQL, HAProxy in front
// (docs/team.md). Used by the multi-instance suite (test/team/) and `npm run team:demo`; it
// imports nothing of vitest, so the demo can bundle it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allUp, startHaproxy, type Balancer } from './haproxy';

const BIN = path.resolve('bin/atelier.mjs');

export interface TeamInstance {
  index: number;
  /** `http://127.0.0.1:PORT`: this instance directly (its studio, its /healthz). */
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** What the process printed so far (stdout and stderr). */
  output(): string;
  /** The studio login link it printed (one use, 10 minutes). */
  studioLogin: string | null;
  exited: Promise<number | null>;
}

export interface Team {
  instances: TeamInstance[];
  balancer: Balancer;
  /** SIGTERM to every instance still running (each drains), then HAProxy. */
  stop(): Promise<void>;
}

export interface TeamOptions {
  /** The shared PostgreSQL; null: each instance on its own SQLite file (its data folder). */
  databaseUrl: string | null;
  instances: number;
  /** Each instance's data folder is `root/instance-N` (its studio's local files). */
  root: string;
  /** Extra flags for every `atelier serve` (an `--upstream-url`, a simulator speed). */
  serveArgs?: readonly string[];
  env?: NodeJS.ProcessEnv;
  checkIntervalMs?: number;
}

/**
 * Why this build cannot run a team gateway, or null when it can: `atelier serve` must take
 * `--database`, and start with it (a build whose state is not all on the storage port refuses,
 * saying "cannot start yet"). The second is asked of a database that does not exist: such a
 * build refuses before connecting, any other fails to connect.
 */
export function teamGatewayUnavailable(): string | null {
  const help = spawnSync(process.execPath, [BIN, 'serve', '--help'], { encoding: 'utf8' });
  if (!`${help.stdout}${help.stderr}`.includes('--database')) {
    return '`atelier serve` has no --database option yet (issue 21 item 1)';
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-team-probe-'));
  const probe = spawnSync(
    process.execPath,
    [BIN, 'serve', '--database', 'postgres://atelier@127.0.0.1:1/none', '--port', '0'],
    { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ATELIER_DATA_DIR: dataDir } },
  );
  fs.rmSync(dataDir, { recursive: true, force: true });
  const refusal = /cannot start yet[^\n]*/.exec(`${probe.stdout}${probe.stderr}`)?.[0];
  return refusal ? `\`atelier serve --database\` ${refusal}` : null;
}

/**
 * Starts `atelier serve` (with `--database URL` when given) and resolves once it prints its
 * listening line.
 */
export function startInstance(
  index: number,
  opts: Pick<TeamOptions, 'databaseUrl' | 'root' | 'serveArgs' | 'env'> & {
    /** A port of its own (an instance started again where it was); 0 picks a free one. */
    port?: number;
  },
): Promise<TeamInstance> {
  const dataDir = path.join(opts.root, `instance-${index + 1}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const args = [
    BIN,
    'serve',
    ...(opts.databaseUrl === null ? [] : ['--database', opts.databaseUrl]),
    '--host',
    '127.0.0.1',
    '--port',
    String(opts.port ?? 0),
    // HAProxy checks every 250 ms here (1 s in docs/team.md): three checks' notice.
    '--drain-seconds',
    '1',
    '--oauth-callback-port',
    '0',
    '--data-dir',
    dataDir,
    ...(opts.serveArgs ?? []),
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...opts.env },
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
      if (!match?.[1]) return;
      child.stdout?.off('data', onData);
      child.stdout?.on('data', (more: Buffer) => (output += more.toString()));
      const url = match[1];
      resolve({
        index,
        url,
        port: Number(new URL(url).port),
        dataDir,
        child,
        output: () => output,
        studioLogin: /studio login: (\S+)/.exec(output)?.[1] ?? null,
        exited,
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`atelier serve exited with ${code}:\n${output}`)));
  });
}

/** N instances on one database and HAProxy in front; resolves once HAProxy sees every one up. */
export async function startTeam(opts: TeamOptions): Promise<Team> {
  const instances: TeamInstance[] = [];
  const stopInstances = async () => {
    await Promise.all(
      instances.map(async (instance) => {
        if (instance.child.exitCode === null && instance.child.signalCode === null) {
          instance.child.kill('SIGTERM');
        }
        await instance.exited;
      }),
    );
  };
  let balancer: Balancer | null = null;
  try {
    // One after another: the first migrates the database (the others would wait on its lock).
    for (let i = 0; i < opts.instances; i += 1) instances.push(await startInstance(i, opts));
    balancer = await startHaproxy(
      instances.map((instance) => ({ port: instance.port })),
      { checkIntervalMs: opts.checkIntervalMs ?? 250 },
    );
    await balancer.until(allUp);
    const started = balancer;
    return {
      instances,
      balancer: started,
      async stop() {
        await stopInstances();
        await started.stop();
      },
    };
  } catch (error) {
    await stopInstances();
    await balancer?.stop();
    throw error;
  }
}
