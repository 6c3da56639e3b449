/** Messages between the harness and its child processes (over the fork IPC channel). */

/** OAuth tokens of one simulated subscription account, from `sim.oauth.login()`. */
export interface BenchTokens {
  accessToken: string;
  refreshToken: string;
  idToken: string;
  expiresAt: number;
  /** The `chatgpt-account-id` header value. */
  accountId: string;
}

/** The simulator child: one simulator with the native channel, one without (bridge only). */
export interface SimulatorReady {
  type: 'ready';
  url: string;
  bridgeUrl: string;
  tokens: { native: BenchTokens; bridge: BenchTokens };
}

export interface GatewayChildConfig {
  dataDir: string;
  /** Keeps the gateway from starting its own in-process simulator. */
  upstreamBaseUrl: string;
  /** Secret name -> stored value, for the in-memory secret store. */
  secrets: Record<string, string>;
  verbose: boolean;
  /** A PostgreSQL database for the gateway (the postgres case); else the folder's SQLite file. */
  databaseUrl?: string;
}

export type ToGateway =
  | { type: 'config'; config: GatewayChildConfig }
  | { type: 'gc' }
  | { type: 'heap-snapshot'; file: string }
  | { type: 'query-counts' }
  | { type: 'close' };

/** The SQL statements a PostgreSQL gateway child has sent so far (one round trip each). */
export interface QueryCounts {
  total: number;
  /** Per statement text, whitespace collapsed. */
  byStatement: Record<string, number>;
}

export type FromGateway =
  | { type: 'ready'; url: string }
  | { type: 'gc-done'; memory: NodeJS.MemoryUsage }
  | { type: 'heap-snapshot-done'; file: string }
  | ({ type: 'query-counts-done' } & QueryCounts)
  | { type: 'error'; message: string };

/** To baselineSetupChild.ts: prepare a data folder with the baseline tree's bundled setup. */
export interface BaselineSetupRequest {
  type: 'prepare';
  /** The baseline's bundled `bench/setup.ts` (baseline.ts). */
  module: string;
  sim: SimulatorReady;
  opts: { verbose: boolean; keepApiImages: boolean };
}

/** A data folder the baseline's setup prepared: what its gateway child and the ways need. */
export interface BaselineSetup {
  dataDir: string;
  keys: Record<'apiKey' | 'native' | 'bridge', string>;
  gatewayConfig: GatewayChildConfig;
  tokens: SimulatorReady['tokens'];
}

export type BaselineSetupReply =
  { type: 'prepared'; setup: BaselineSetup } | { type: 'error'; message: string };

export type ToSimulator = { type: 'close' };
