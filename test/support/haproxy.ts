// A real load balancer for the multi-instance tests and `npm run team:demo`: Debian's HAProxy,
// started in a throwaway folder of its own on a free loopback port, in front of N gateways, with
// the health check docs/operations.md describes (GET /healthz, 200 = send work here).
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from './postgres';

/** Debian's haproxy lives in /usr/sbin, which a plain user's PATH lacks; HAPROXY_BIN wins. */
export function haproxyBinary(): string | null {
  const candidates = [
    process.env.HAPROXY_BIN,
    '/usr/sbin/haproxy',
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'haproxy')),
  ];
  return candidates.find((file) => file && fs.existsSync(file)) ?? null;
}

export interface Backend {
  /** `127.0.0.1` unless said otherwise. */
  host?: string;
  port: number;
}

export interface Balancer {
  /** `http://127.0.0.1:PORT`: where clients send their requests. */
  url: string;
  port: number;
  /** The folder holding the configuration, the admin socket and the log. */
  dir: string;
  /** Each server's state as HAProxy sees it now ('UP', 'DOWN', 'MAINT', 'no check'...), by `host:port`. */
  states(): Promise<Map<string, string>>;
  /**
   * Resolves once `ready(states)` holds. The states are read again whenever HAProxy prints a line
   * (it logs every server going up or down), so nothing polls; rejects with the last states
   * after `timeoutMs`.
   */
  until(ready: (states: Map<string, string>) => boolean, timeoutMs?: number): Promise<void>;
  /** Requests each server was sent so far (`stot`), by `host:port`. */
  served(): Promise<Map<string, number>>;
  /** HAProxy's own log (server state changes). */
  log(): string;
  stop(): Promise<void>;
}

export interface BalancerOptions {
  /** How often each server is checked; one failed check marks it down, two passed up. */
  checkIntervalMs?: number;
}

/** The server name is its address: HAProxy sends it as the Host the gateway's guard expects. */
const nameOf = (backend: Backend) => `${backend.host ?? '127.0.0.1'}:${backend.port}`;

/**
 * The configuration, as docs/team.md shows it. A gateway answers only to its own Host
 * (http/hostGuard.ts), so `http-send-name-header Host` sends each server's own address; the
 * health check sends it too. Only a refused connection is retried, on another server (`option
 * redispatch`): a request a gateway received is never sent twice. Server timeouts cover a 4K
 * image (the gateway's own upstream timeout is 300 s).
 */
export function haproxyConfig(opts: {
  port: number;
  socket: string;
  backends: readonly Backend[];
  checkIntervalMs: number;
}): string {
  const servers = opts.backends.map(
    (b) => `  server ${nameOf(b)} ${nameOf(b)} check inter ${opts.checkIntervalMs}ms fall 1 rise 2`,
  );
  return [
    'global',
    `  stats socket ${opts.socket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 330s',
    '  timeout server 330s',
    '  timeout http-request 30s',
    // Without it a check times out after its interval: a busy instance that answers /healthz
    // in 300 ms would be taken out. A drain answers 503 at once, so it is still seen at the
    // first check.
    '  timeout check 5s',
    '  retries 2',
    '  option redispatch',
    // Each request on a connection of its own to its instance: a request sent on a kept-alive
    // connection to an instance that has just died is lost (HAProxy may not send a POST twice),
    // where a new connection to it is refused and redispatched. A loaded run's kill -9 lost one
    // request of new work that way. A loopback connect costs far less than an image.
    '  http-reuse never',
    'frontend atelier_front',
    `  bind 127.0.0.1:${opts.port}`,
    '  default_backend atelier',
    'backend atelier',
    '  balance roundrobin',
    '  http-send-name-header Host',
    '  option httpchk',
    '  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host %[srv_name]',
    '  http-check expect status 200',
    ...servers,
    '',
  ].join('\n');
}

/** One command on HAProxy's admin socket; its whole answer. */
function adminCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    let answer = '';
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => (answer += chunk));
    connection.on('error', reject);
    connection.on('end', () => resolve(answer));
    connection.end(`${command}\n`);
  });
}

/** `show stat`'s CSV: each server of the `atelier` backend and its status column. */
export function serverStates(csv: string): Map<string, string> {
  return serverColumn(csv, 'status');
}

/** One column of `show stat`'s CSV for each server of the `atelier` backend. */
function serverColumn(csv: string, column: string): Map<string, string> {
  const [header, ...rows] = csv.split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const at = (name: string) => columns.indexOf(name);
  const states = new Map<string, string>();
  for (const row of rows) {
    const cells = row.split(',');
    const server = cells[at('svname')];
    if (cells[at('pxname')] !== 'atelier' || !server) continue;
    if (server === 'FRONTEND' || server === 'BACKEND') continue;
    states.set(server, cells[at(column)] ?? '');
  }
  return states;
}

/**
 * Resolves once HAProxy's admin socket answers: its ports are bound before the socket accepts
 * (it enables every listener together, when its main loop starts). Until then a connection is
 * refused and tried again 25 ms later, as `pg_ctl -w` waits for PostgreSQL: nothing else says
 * when the main loop has started.
 */
async function answering(socket: string, exited: () => boolean, output: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited()) throw new Error(`HAProxy exited:\n${output}`);
    const answer = await adminCommand(socket, 'show info').catch(() => '');
    if (answer.includes('Name: HAProxy')) return;
    if (Date.now() > deadline) throw new Error('HAProxy did not answer on its admin socket');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts HAProxy in front of `backends`; resolves once it answers on its admin socket. */
export async function startHaproxy(
  backends: readonly Backend[],
  options: BalancerOptions = {},
): Promise<Balancer> {
  const binary = haproxyBinary();
  if (!binary) throw new Error('HAProxy is not installed (Debian: apt-get install haproxy)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-haproxy-'));
  const port = await freeLoopbackPort();
  const socket = path.join(dir, 'admin.sock');
  const config = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(
    config,
    haproxyConfig({ port, socket, backends, checkIntervalMs: options.checkIntervalMs ?? 250 }),
  );
  let output = '';
  // Each line HAProxy prints (a server going up or down, an exit) wakes whoever waits on it.
  const printed = new EventEmitter();
  // -db: in the foreground, so it is this process's child and dies with a signal to it.
  const child: ChildProcess = spawn(binary, ['-f', config, '-db'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const hear = (chunk: Buffer) => {
    output += chunk.toString();
    printed.emit('output');
  };
  child.stdout?.on('data', hear);
  child.stderr?.on('data', hear);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.once('exit', () => printed.emit('output'));
  const stop = async () => {
    watcher.close();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const watcher = fs.watch(dir, () => printed.emit('output'));
  const states = async () => serverStates(await adminCommand(socket, 'show stat'));
  const until = (
    ready: (states: Map<string, string>) => boolean,
    timeoutMs = 15_000,
  ): Promise<void> =>
    new Promise((resolve, reject) => {
      let last = new Map<string, string>();
      let checking = false;
      let again = false;
      const done = (error?: Error) => {
        clearTimeout(timer);
        printed.off('output', check);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(
        () => done(new Error(`HAProxy's servers stayed ${JSON.stringify([...last])}:\n${output}`)),
        timeoutMs,
      );
      // Reads the states on each signal (one read at a time; a signal during a read reads again).
      const check = () => {
        if (checking) {
          again = true;
          return;
        }
        if (child.exitCode !== null || child.signalCode !== null) {
          done(new Error(`HAProxy exited:\n${output}`));
          return;
        }
        if (!fs.existsSync(socket)) return;
        checking = true;
        states()
          .then((now) => {
            last = now;
            if (now.size > 0 && ready(now)) done();
          })
          .catch(() => undefined)
          .finally(() => {
            checking = false;
            if (again) {
              again = false;
              check();
            }
          });
      };
      printed.on('output', check);
      check();
    });
  try {
    await answering(socket, () => child.exitCode !== null || child.signalCode !== null, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    states,
    until,
    served: async () =>
      new Map(
        [...serverColumn(await adminCommand(socket, 'show stat'), 'stot')].map(([name, count]) => [
          name,
          Number(count),
        ]),
      ),
    log: () => output,
    stop,
  };
}

/** Every server is `UP`. */
export const allUp = (states: Map<string, string>) =>
  [...states.values()].every((state) => state === 'UP');
