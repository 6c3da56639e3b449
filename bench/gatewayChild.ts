// The gateway under test, alone in its process so that its RSS is its own. Configured over IPC
// (the tokens of the simulated accounts are not put in the environment).
import { writeHeapSnapshot } from 'node:v8';
import { createGateway, type Gateway } from '../src/gateway';
import type { SecretStore } from '../src/gateway/secrets/types';
import type { FromGateway, GatewayChildConfig, ToGateway } from './protocol';
import { countPgQueries, type QueryCounter } from './queryCounter';

const send = (message: FromGateway) => process.send!(message);

/**
 * An in-memory secret store. The OS keychain is read once per account (the adapter is cached), so
 * it is irrelevant to throughput; this keeps the benchmark runnable without a keyring daemon.
 */
function memorySecrets(initial: Record<string, string>): SecretStore {
  const values = new Map(Object.entries(initial));
  return {
    kind: 'memory',
    get: async (name) => values.get(name) ?? null,
    set: async (name, value) => {
      values.set(name, value);
    },
    delete: async (name) => {
      values.delete(name);
    },
  };
}

/** On PostgreSQL: every statement the gateway's engine sends, counted (the postgres case). */
let queries: QueryCounter | null = null;

async function start(config: GatewayChildConfig): Promise<Gateway> {
  if (config.databaseUrl !== undefined) queries = countPgQueries();
  const gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    upstreamBaseUrl: config.upstreamBaseUrl,
    secrets: memorySecrets(config.secrets),
    log: config.verbose ? (line) => process.stderr.write(`[gateway] ${line}\n`) : () => undefined,
  });
  send({ type: 'ready', url: await gateway.listen() });
  return gateway;
}

let gateway: Promise<Gateway> | null = null;

process.on('message', (message: ToGateway) => {
  switch (message.type) {
    case 'config':
      gateway = start(message.config);
      gateway.catch((error: unknown) => {
        send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      });
      break;
    case 'gc':
      // Started with --expose-gc: a collection before each case makes baselines comparable.
      (globalThis as { gc?: () => void }).gc?.();
      send({ type: 'gc-done', memory: process.memoryUsage() });
      break;
    case 'heap-snapshot':
      send({ type: 'heap-snapshot-done', file: writeHeapSnapshot(message.file) });
      break;
    case 'query-counts':
      send({ type: 'query-counts-done', ...(queries?.read() ?? { total: 0, byStatement: {} }) });
      break;
    case 'close':
      // A normal exit, so that --cpu-prof writes its profile.
      void (gateway ?? Promise.resolve(null))
        .then((g) => g?.close(1_000))
        .finally(() => process.exit(0));
      break;
  }
});
process.on('disconnect', () => process.exit(0));
