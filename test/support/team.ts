// A team gateway on one machine: N `atelier serve` processes on one PostgreSQL, HAProxy in front
// (docs/team.md). Used by the team suites (test/team/: setUpTeam and the request helpers at the
// end) and `npm run team:demo`; it imports nothing of vitest, so the demo can bundle it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { databasePath } from '../../src/gateway/core/dataDir';
import {
  createKeysRepository,
  type ApiKeyRecord,
  type NewApiKey,
} from '../../src/gateway/keys/repository';
import { createDatabaseSecretStore } from '../../src/gateway/secrets/databaseStore';
import { generateSecretKey, parseSecretKey } from '../../src/gateway/secrets/secretKey';
import type { SecretStore } from '../../src/gateway/secrets/types';
import { openDatabase } from '../../src/gateway/storage/db';
import type { SqlEngine, SqlValue } from '../../src/gateway/storage/engine';
import { openPostgresDatabase } from '../../src/gateway/storage/postgresEngine';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import { startSimulator, type Fault, type Simulator } from '../../src/simulator';
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

/** Everything a team suite runs on (setUpTeam). */
export interface TeamSetup {
  simulator: Simulator;
  team: Team;
  /** The temp folder holding every instance's data folder. */
  root: string;
  /**
   * The databases the test reads: the one PostgreSQL database the instances share, or each
   * instance's own SQLite file (by instance index).
   */
  engines: SqlEngine[];
  /** A key every instance accepts: made in the first database, its row copied to the others. */
  createKey(input: NewApiKey): Promise<{ key: string; record: ApiKeyRecord }>;
  /** Starts instance `index` again where it was: its port, its data folder, its database. */
  restart(index: number): Promise<TeamInstance>;
  /** Stops the instances, HAProxy and the simulator; drops the database; removes the folder. */
  stop(): Promise<void>;
}

export interface TeamSetupOptions {
  /**
   * The test run's PostgreSQL server (its maintenance database): the instances share a database
   * of their own made on it. null: each instance on its own SQLite file.
   */
  postgresServer: string | null;
  /** Names the temp folder (and the database): `atelier-NAME-...`. */
  name: string;
  instances?: number;
  /**
   * PostgreSQL only: runs before the instances start, on the migrated database and its secret
   * store (sealed under the instances' key), so accounts made here are there when they start.
   */
  seed?: (seeding: {
    engine: SqlEngine;
    secrets: SecretStore;
    simulator: Simulator;
    /** The database's URL and the instances' environment (its secret key): for the CLI. */
    databaseUrl: string;
    env: NodeJS.ProcessEnv;
  }) => Promise<void>;
}

/**
 * The simulator, N `atelier serve` instances sending their image work to it (on one PostgreSQL
 * database, or each on its own SQLite file) and HAProxy in front: the setup of the team suites.
 * Undone by `stop()`, also when it fails halfway.
 */
export async function setUpTeam(opts: TeamSetupOptions): Promise<TeamSetup> {
  const undo: Array<() => Promise<void>> = [];
  /** Every step undone, last first, even when one fails (the first failure is thrown after). */
  const stop = async () => {
    const failures: unknown[] = [];
    for (const step of undo.splice(0).reverse())
      await step().catch((e: unknown) => failures.push(e));
    if (failures.length > 0) throw failures[0];
  };
  try {
    const simulator = await startSimulator({ speed: 0 });
    undo.push(() => simulator.close());
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `atelier-${opts.name}-`));
    undo.push(async () => fs.rmSync(root, { recursive: true, force: true }));
    const serving = {
      root,
      serveArgs: ['--upstream-url', `${simulator.url}/v1`],
      env: { ATELIER_UPSTREAM_API_KEY: 'sk-team-upstream' } as NodeJS.ProcessEnv,
      databaseUrl: null as string | null,
    };
    let shared: SqlEngine | null = null;
    if (opts.postgresServer !== null) {
      const server = opts.postgresServer;
      const name = `atelier_${opts.name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
      await maintenance(server, `CREATE DATABASE ${name}`);
      undo.push(() => maintenance(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      const url = new URL(server);
      url.pathname = `/${name}`;
      serving.databaseUrl = url.toString();
      // One key seals every instance's secrets (docs/team.md, "The secret key").
      const secretKey = generateSecretKey();
      serving.env.ATELIER_SECRET_KEY = secretKey;
      const engine = await openPostgresDatabase({ url: serving.databaseUrl, max: 4 });
      shared = engine;
      undo.push(() => engine.close());
      await opts.seed?.({
        engine,
        secrets: createDatabaseSecretStore({ engine, key: parseSecretKey(secretKey, 'team') }),
        simulator,
        databaseUrl: serving.databaseUrl,
        env: serving.env,
      });
    } else if (opts.seed) {
      throw new Error('setUpTeam: seed is for a shared PostgreSQL database');
    }
    const team = await startTeam({ ...serving, instances: opts.instances ?? 3 });
    undo.push(() => team.stop());
    const engines = shared
      ? [shared]
      : team.instances.map((instance) =>
          sqliteEngine(openDatabase(databasePath(instance.dataDir))),
        );
    if (!shared) undo.push(async () => void (await Promise.all(engines.map((e) => e.close()))));
    return {
      simulator,
      team,
      root,
      engines,
      createKey: async (input) => {
        const [first, ...others] = engines;
        const created = await createKeysRepository(first!).create(input);
        const row = await first!.get<Record<string, unknown>>(
          'SELECT * FROM api_keys WHERE id = ?',
          [created.record.id],
        );
        const columns = Object.keys(row ?? {});
        for (const engine of others) {
          await engine.run(
            `INSERT INTO api_keys (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
            Object.values(row ?? {}) as SqlValue[],
          );
        }
        return created;
      },
      restart: async (index) => {
        const previous = team.instances[index]!;
        const restarted = await startInstance(index, { ...serving, port: previous.port });
        team.instances[index] = restarted;
        return restarted;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function maintenance(server: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Seeded, so a failure replays: the soak's generator (scripts/soak/plan.ts). */
export { prng as seeded } from '../../scripts/soak/plan';

/** The upstream faults of the 20 % fault load: each request has one of these, or none. */
export const TEAM_FAULTS = [
  { kind: 'http_error', status: 500 },
  { kind: 'http_error', status: 503 },
  { kind: 'reset' },
  { kind: 'no_usage' },
  { kind: 'no_image' },
  { kind: 'refusal' },
  { kind: 'downgrade' },
  { kind: 'slow', delayMs: 200 },
] as const satisfies readonly Fault[];

/** At most `limit` of `jobs` at once, in order. */
export async function pooled<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

export interface Answer {
  status: number;
  /** The gateway's request id; null when no gateway answered (HAProxy's 502, a lost connection). */
  requestId: string | null;
  images: number;
  /**
   * What went wrong: the body of an error answer (its start), or a transport failure's cause
   * (status 0: a request whose instance died).
   */
  error: string | null;
}

/**
 * One image generation sent to `url` (HAProxy, or one instance directly). A request whose
 * instance died is lost to its client: HAProxy's 502, or (on a kept-alive connection) the
 * connection closed, here status 0 with its cause.
 */
export async function generate(
  url: string,
  key: string,
  prompt: string,
  options: Record<string, unknown> = {},
): Promise<Answer> {
  try {
    const res = await fetch(`${url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-model-2', prompt, quality: 'low', ...options }),
    });
    const text = await res.text();
    const requestId = res.headers.get('x-request-id');
    if (res.status === 200 && requestId) {
      const body = JSON.parse(text) as { data?: unknown[] };
      return { status: 200, requestId, images: body.data?.length ?? 0, error: null };
    }
    return { status: res.status, requestId, images: 0, error: text.slice(0, 500) };
  } catch (error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return { status: 0, requestId: null, images: 0, error: `${prompt}: ${String(cause ?? error)}` };
  }
}

/**
 * Upstream calls per request marker (`[...]` in the prompt), tallied as they arrive: the
 * simulator keeps only its latest 500 calls, so `take()` runs after every answer.
 */
export function callTally(simulator: Simulator, marker: RegExp) {
  const calls = new Map<string, number>();
  return {
    calls,
    take() {
      for (const call of simulator.calls.splice(0)) {
        const found = marker.exec(call.prompt ?? '')?.[0];
        if (found) calls.set(found, (calls.get(found) ?? 0) + 1);
      }
    },
  };
}
