/** Messages between the harness and its two child processes (over the fork IPC channel). */

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
}

export type ToGateway =
  | { type: 'config'; config: GatewayChildConfig }
  | { type: 'gc' }
  | { type: 'heap-snapshot'; file: string }
  | { type: 'close' };

export type FromGateway =
  | { type: 'ready'; url: string }
  | { type: 'gc-done'; memory: NodeJS.MemoryUsage }
  | { type: 'heap-snapshot-done'; file: string }
  | { type: 'error'; message: string };

export type ToSimulator = { type: 'close' };
