// A real PostgreSQL for the tests: Debian's server binaries, started in a throwaway data folder on
// a free loopback port of its own, the way scripts/with-keyring.sh starts a private keyring. One
// server per test run (startPostgres, from the vitest global setup); each suite or test asks it for
// a fresh database (test/support/engines.ts).
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's postgresql-15 puts initdb and pg_ctl; `ATELIER_PG_BIN` points elsewhere. */
export const PG_BIN = process.env.ATELIER_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** The superuser the harness creates (trust authentication, loopback and its own socket only). */
const SUPERUSER = 'atelier';

export interface PostgresServer {
  /** `postgres://atelier@127.0.0.1:PORT/postgres`: the maintenance database. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Why this machine cannot start the test server (null when it can). */
export function postgresUnavailable(): string | null {
  for (const tool of ['initdb', 'pg_ctl', 'postgres']) {
    if (!fs.existsSync(path.join(PG_BIN, tool))) {
      return (
        `PostgreSQL's ${tool} is not in ${PG_BIN}: install PostgreSQL 15 ` +
        `(Debian: apt-get install postgresql) or set ATELIER_PG_BIN`
      );
    }
  }
  return null;
}

/**
 * initdb refuses to run as root, so as root the server runs as the `postgres` user Debian's
 * package creates; as anyone else it runs as that user.
 */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line)
    throw new Error('Running as root needs the postgres user (apt-get install postgresql)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A port nobody listens on now (the OS's pick), for a server that cannot report its own. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts a private PostgreSQL: initdb in a temp folder, the socket in that folder too (never
 * /var/run/postgresql), listening on 127.0.0.1 only. Durability is switched off: a test server's
 * data is thrown away, and fsync would only make the shared machine slower.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const unavailable = postgresUnavailable();
  if (unavailable) throw new Error(unavailable);
  const user = serverUser();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pg-'));
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'socket');
  fs.mkdirSync(socketDir);
  if (user) {
    fs.chownSync(root, user.uid, user.gid);
    fs.chownSync(socketDir, user.uid, user.gid);
  }
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  // Run from the temp folder: the server user may not be allowed into the caller's directory.
  const options = { ...as, cwd: root, env: { ...process.env, LC_ALL: 'C.UTF-8' } };
  const pgCtl = path.join(PG_BIN, 'pg_ctl');
  const logFile = path.join(root, 'server.log');

  try {
    await run(
      path.join(PG_BIN, 'initdb'),
      ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--no-sync'],
      options,
    );
    const port = await freeLoopbackPort();
    const serverOptions = [
      `-p ${port}`,
      `-k ${socketDir}`,
      `-c listen_addresses=127.0.0.1`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    // -w: returns once the server accepts connections.
    await run(pgCtl, ['-D', dataDir, '-l', logFile, '-o', serverOptions, '-w', 'start'], options);
    let stopped = false;
    return {
      url: `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`,
      port,
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await run(pgCtl, ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], options);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
    // A server that did start must not outlive the failure.
    try {
      execFileSync(pgCtl, ['-D', dataDir, '-m', 'immediate', 'stop'], {
        ...options,
        stdio: 'ignore',
      });
    } catch {
      // not running
    }
    fs.rmSync(root, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`, {
      cause: error,
    });
  }
}
