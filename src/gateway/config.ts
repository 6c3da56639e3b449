import type { ClientTimeouts } from './http/slowClients';
import type { CooldownSettings } from './dispatch/cooldownPolicy';
import type { SecretStore } from './secrets/types';

/** Everything a gateway instance needs, resolved by its entry point (CLI or Electron main). */
export interface GatewayConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  /**
   * A PostgreSQL server's URL (`postgres://...`): the database of a team gateway, shared by its
   * instances (docs/team.md). Omitted: the SQLite file in `dataDir`, as the desktop app uses.
   */
  databaseUrl?: string;
  /** Built studio to serve at `/`; omitted where no build exists. */
  staticDir?: string;
  /** Extra origins allowed to call `/v1` from a browser (the studio's own origin always is). */
  allowedOrigins?: string[];
  /**
   * Where to send image work. Omitted: start the built-in offline simulator in-process and use it.
   */
  upstreamBaseUrl?: string;
  /** Bearer key for `upstreamBaseUrl` (from the environment, never from the database). */
  upstreamApiKey?: string;
  /** Simulator latency multiplier when the gateway starts it (0 = no artificial delay). */
  simulatorSpeed?: number;
  /**
   * The credential of the simulator's control routes; omitted, a random one per run that only
   * this process knows (tests that start `atelier serve` choose it to script faults).
   */
  simulatorControlToken?: string;
  /** The secret store; by default the OS keychain, opened on first use (tests inject their own). */
  secrets?: SecretStore;
  /**
   * Port of the OAuth loopback callback for sign-ins started from the studio: 1455 by default
   * (what the public client registered); tests pass 0 for a free one.
   */
  oauthCallbackPort?: number;
  /**
   * On stop, how long /healthz keeps answering 503 `draining` (and /v1 503) before the port
   * closes, however soon the in-flight requests end: a load balancer polls, and must see the
   * drain before the connection is refused. Default 0 (a desktop app has no balancer).
   */
  drainNoticeMs?: number;
  /** Bounds on slow and idle clients (http/slowClients.ts); tests shorten them. */
  clientTimeouts?: Partial<ClientTimeouts>;
  /** Cooldown rules, where not the defaults of docs/dispatch.md (tests lengthen the outage rest). */
  cooldowns?: Partial<CooldownSettings>;
  /** Where log lines go; defaults to stderr. Never receives secrets. */
  log?: (line: string) => void;
}
