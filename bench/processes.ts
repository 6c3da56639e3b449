import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markProfiled } from './cpu';
import type {
  FromGateway,
  GatewayChildConfig,
  QueryCounts,
  SimulatorReady,
  ToGateway,
  ToSimulator,
} from './protocol';

/** The bundles sit next to this one in out/bench/. */
const here = path.dirname(fileURLToPath(import.meta.url));

function nextMessage<T extends { type: string }>(child: ChildProcess, type: T['type']): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message.type === 'error') {
        cleanup();
        reject(new Error(`child failed: ${(message as { message?: string }).message}`));
      } else if (message.type === type) {
        cleanup();
        resolve(message);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`child exited with ${code} before sending '${type}'`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

async function stop(child: ChildProcess, message: ToGateway | ToSimulator): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.send(message);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface SimulatorProcess extends SimulatorReady {
  pid: number;
  close(): Promise<void>;
}

export async function startSimulatorProcess(): Promise<SimulatorProcess> {
  const child = fork(path.join(here, 'simulatorChild.mjs'), [], {
    execArgv: ['--enable-source-maps'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await nextMessage<SimulatorReady>(child, 'ready');
  return { ...ready, pid: child.pid!, close: () => stop(child, { type: 'close' }) };
}

export interface GatewayProcess {
  url: string;
  pid: number;
  /** Asks the child for a full garbage collection; answers its process.memoryUsage() after it. */
  gc(): Promise<NodeJS.MemoryUsage>;
  /** Writes a V8 heap snapshot of the child to `file`. */
  heapSnapshot(file: string): Promise<string>;
  /** The SQL statements sent so far, on PostgreSQL (our gateway child only; zero on SQLite). */
  queryCounts(): Promise<QueryCounts>;
  close(): Promise<void>;
}

export async function startGatewayProcess(
  config: GatewayChildConfig,
  opts: {
    cpuProfileDir?: string;
    flags?: readonly string[];
    /** Another tree's bundled gateway child (baseline.ts); ours by default. */
    script?: string;
  } = {},
): Promise<GatewayProcess> {
  const execArgv = ['--enable-source-maps', '--expose-gc', ...(opts.flags ?? [])];
  if (opts.cpuProfileDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${opts.cpuProfileDir}`);
  const child = fork(opts.script ?? path.join(here, 'gatewayChild.mjs'), [], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = nextMessage<Extract<FromGateway, { type: 'ready' }>>(child, 'ready');
  child.send({ type: 'config', config } satisfies ToGateway);
  const { url } = await ready;
  if (opts.cpuProfileDir) markProfiled(child.pid!);
  return {
    url,
    pid: child.pid!,
    async gc() {
      const done = nextMessage<Extract<FromGateway, { type: 'gc-done' }>>(child, 'gc-done');
      child.send({ type: 'gc' } satisfies ToGateway);
      return (await done).memory;
    },
    async heapSnapshot(file) {
      const done = nextMessage<Extract<FromGateway, { type: 'heap-snapshot-done' }>>(
        child,
        'heap-snapshot-done',
      );
      child.send({ type: 'heap-snapshot', file } satisfies ToGateway);
      return (await done).file;
    },
    async queryCounts() {
      const done = nextMessage<Extract<FromGateway, { type: 'query-counts-done' }>>(
        child,
        'query-counts-done',
      );
      child.send({ type: 'query-counts' } satisfies ToGateway);
      const { total, byStatement } = await done;
      return { total, byStatement };
    },
    close: () => stop(child, { type: 'close' }),
  };
}

export interface ProxyProcess {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * The reference proxies (proxyChild.ts) in front of `upstreamUrl`, and of `bridgeUrl` under
 * `/<mode>/bridge/`.
 */
export async function startProxyProcess(
  upstreamUrl: string,
  bridgeUrl: string,
): Promise<ProxyProcess> {
  const child = fork(path.join(here, 'proxyChild.mjs'), [upstreamUrl, bridgeUrl], {
    execArgv: ['--enable-source-maps'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await nextMessage<{ type: 'ready'; url: string }>(child, 'ready');
  return { url, pid: child.pid!, close: () => stop(child, { type: 'close' }) };
}
