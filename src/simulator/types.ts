/** Public types of the simulator: options, the handle, the call log and scripted faults. */

export interface SimulatorOptions {
  /** Default 127.0.0.1: the simulator is a loopback service. */
  host?: string;
  /** Default 0: pick a free port. */
  port?: number;
  /** Latency multiplier; 0 = no artificial delay. Default 1. */
  speed?: number;
  /** 'noise' fills images with incompressible pixels, for benchmarks. Default 'art'. */
  payload?: 'art' | 'noise';
  /** Default true; false makes the native images channel answer 404 (clients fall back). */
  nativeImages?: boolean;
  /** Plan written into id_tokens (`chatgpt_plan_type`). Default 'pro'. */
  planType?: string;
  /** Lifetime of issued access tokens. Default 3600; 0 issues already-expired tokens. */
  accessTokenTtlSeconds?: number;
  /**
   * The credential of the control routes (`/__sim/*`, header `x-atelier-sim-control`). Default:
   * a random one per run, readable only as `Simulator.controlToken`.
   */
  controlToken?: string;
}

export type ResolvedOptions = Required<Omit<SimulatorOptions, 'controlToken'>>;

export type SimCallKind =
  | 'images.generate'
  | 'images.edit'
  | 'native.generate'
  | 'native.edit'
  /** Both /v1/responses and the bridge /backend-api/codex/responses; `path` tells them apart. */
  | 'responses'
  | 'oauth.authorize'
  | 'oauth.token'
  | 'models';

/**
 * One request the simulator received, recorded on arrival (so calls that fail or are reset are
 * logged too). Parameters are as the client sent them; absent ones stay undefined.
 */
export interface SimCall {
  path: string;
  kind: SimCallKind;
  /** The request's `model`; for Responses calls the text model. */
  model?: string;
  /** Responses calls: the image_generation tool's model. */
  imageModel?: string;
  prompt?: string;
  size?: string;
  quality?: string;
  outputFormat?: string;
  n: number;
  partialImages: number;
  stream: boolean;
  hasMask: boolean;
  imageCount: number;
  /** Subscription calls: the `chatgpt-account-id` of the caller. */
  accountId?: string;
  /** The `originator` header of subscription calls. */
  originator?: string;
  /** Milliseconds since the epoch at arrival. */
  at: number;
  /** The caller closed the connection before the answer was complete (a cancel reached here). */
  aborted?: boolean;
  /** Kind of the fault applied to this call, if any. */
  fault?: FaultKind;
  /** HTTP status answered; undefined while running or when the socket was reset. */
  status?: number;
}

export type FaultKind =
  | 'usage_limit'
  | 'http_error'
  | 'reset'
  | 'slow'
  | 'refusal'
  | 'no_image'
  | 'downgrade'
  | 'no_usage'
  | 'absurd_usage';

export interface FaultMatch {
  /** Substring of the URL path. Without it a fault only hits image work (images, native, responses). */
  path?: string;
  accountId?: string;
  promptIncludes?: string;
}

export interface Fault {
  kind: FaultKind;
  /** usage_limit: seconds until the window resets (default 3600). */
  resetsInSeconds?: number;
  /** usage_limit: plan reported in the body (default: the account's plan). */
  planType?: string;
  /** http_error: status to answer (default 500). */
  status?: number;
  /** http_error: error code (and 400's param) to put in the body. */
  code?: string;
  param?: string;
  message?: string;
  /** slow: delay before the response headers. */
  delayMs?: number;
  /** reset: on streams, destroy the socket after this many events instead of before answering. */
  afterEvents?: number;
  /** reset: on a JSON image reply, destroy the socket after this many bytes of the body. */
  afterBytes?: number;
  /** How many matching requests this fault hits. Default 1. */
  times?: number;
  match?: FaultMatch;
}

export interface FaultScript {
  /** Appends faults; each hits the next `times` matching requests, first added first. */
  add(...faults: Fault[]): void;
  clear(): void;
  /** Faults not yet used up, with their remaining `times`. */
  readonly pending: readonly Fault[];
}

export interface OAuthTokens {
  access_token: string;
  refresh_token: string;
  id_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  /** The `chatgpt_account_id` of the tokens, to send as `chatgpt-account-id`. */
  account_id: string;
}

export interface OAuthControl {
  /** Marks a refresh token so its next use fails with `refresh_token_<state>`. */
  setRefreshTokenState(refreshToken: string, state: 'expired' | 'invalidated'): void;
  /**
   * Issues tokens as a completed login would, without the browser round trip: for tests that
   * need a signed-in account but do not test the login itself. Same email, same account.
   */
  login(options?: {
    email?: string;
    planType?: string;
    clientId?: string;
    scope?: string;
  }): OAuthTokens;
}

export interface Simulator {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  port: number;
  faults: FaultScript;
  /** Log of the latest calls, newest last. Cleared in place by DELETE /__sim/calls. */
  calls: SimCall[];
  /** This run's credential for the control routes: send it as `x-atelier-sim-control`. */
  controlToken: string;
  /** Bearer tokens (API keys or access tokens) answered with 401 from now on. */
  revoke(token: string): void;
  /**
   * The calls of one account in progress now, and the most it ever had at once: an API key (the
   * Bearer of API-key routes) or a subscription's `chatgpt-account-id`. A call counts from its
   * authentication until its response is finished or its connection closes.
   */
  atOnce(accountId: string): { now: number; most: number };
  oauth: OAuthControl;
  close(): Promise<void>;
}
