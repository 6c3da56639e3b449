import type { Agent } from 'undici';
import type { Simulator } from '../simulator';
import type { GatewayEvents } from './core/events';
import type { AccountRecord } from './core/domain';
import type { SecretStore } from './secrets/types';
import type { UsageLogState } from './usage/logHealth';

export interface Gateway {
  /** http://HOST:PORT once listening. */
  readonly url: string;
  readonly port: number;
  listen(): Promise<string>;
  /** Stops accepting, lets in-flight requests finish (or cancels and records them), then closes. */
  close(graceMs?: number): Promise<void>;
  /** The built-in simulator when it serves as the upstream (tests script faults through it). */
  readonly simulator: Simulator | null;
  /**
   * Emits `usage` with each request id once its usage record is written (the live request log),
   * and `image` once a kept image is in the gallery.
   */
  readonly events: GatewayEvents;
  /**
   * A fresh one-time studio login URL (`/login?token=...`, 10 minutes, single use). `atelier
   * serve` prints one; the Electron window loads one.
   */
  createStudioLogin(): Promise<string>;
  /**
   * The authorize URL of an OAuth sign-in the studio started and that still waits for the
   * browser; null for an unknown, finished or failed one. The desktop shell opens only these.
   */
  signInUrl(loginId: string): string | null;
  /** The origins a sign-in may be opened at (accounts/signInIssuers.ts). */
  signInIssuers(): string[];
  /** The accounts dispatch uses now (the implicit one while none is configured). */
  servingAccounts(): readonly AccountRecord[];
  /** Whether the usage log takes writes; while not, /v1 answers 503 `usage_log_unavailable`. */
  usageLog(): UsageLogState & { unwritten: number };
}

/** What a gateway is given rather than makes: its clock, upstream connection pool, secret store. */
export interface GatewayDeps {
  now?: () => number;
  /** The upstream connection pool (closed by its owner when given; else made and closed here). */
  agent?: Agent;
  /** The secret store; by default `config.secrets`, else the OS keychain opened on first use. */
  secrets?: SecretStore;
}
