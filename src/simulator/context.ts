import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultScriptImpl } from './faults';
import type { OAuthStore } from './oauthStore';
import type { ResolvedOptions, SimCall, SimCallKind } from './types';

/** Everything one simulator instance owns; handlers receive it through the request context. */
export interface SimState {
  opts: ResolvedOptions;
  faults: FaultScriptImpl;
  calls: SimCall[];
  oauth: OAuthStore;
  /** Bearer tokens that answer 401 from now on. */
  revoked: Set<string>;
  /** Set once listening; the OAuth issuer and JWT `iss`. */
  url: string;
  /** The Host values it answers to (its own loopback host:port), set once listening. */
  hosts: Set<string>;
  /** This run's credential for the control routes (`/__sim/*`). */
  controlToken: string;
  /**
   * The inputs of the latest edit that passed the input checks (its first image and mask, as
   * received), for tests to read back through `GET /__sim/last-edit`. Only the latest: images
   * are megabytes.
   */
  lastEdit: { at: number; image: Buffer; mask: Buffer | null } | null;
  /** Per account (API key or subscription account id): its calls in progress, and the most seen. */
  atOnce: Map<string, AtOnce>;
}

export interface AtOnce {
  now: number;
  most: number;
}

/**
 * The call log keeps the latest calls only: it holds prompts, and a long run would otherwise
 * grow it without end (300 calls of long prompts were 9.6 million characters).
 */
export const MAX_LOGGED_CALLS = 500;

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  state: SimState;
  requestId: string;
  /** Aborted when the client goes away or the simulator closes: stops timers and rendering. */
  signal: AbortSignal;
  call?: SimCall;
}

/** Logs the call on arrival; the caller fills in parameters once it has parsed them. */
export function recordCall(ctx: Ctx, kind: SimCallKind): SimCall {
  const call: SimCall = {
    path: ctx.url.pathname,
    kind,
    n: 1,
    partialImages: 0,
    stream: false,
    hasMask: false,
    imageCount: 0,
    at: Date.now(),
  };
  ctx.call = call;
  const calls = ctx.state.calls;
  calls.push(call);
  // In place: in-process holders of `sim.calls` keep seeing the live log.
  if (calls.length > MAX_LOGGED_CALLS) calls.splice(0, calls.length - MAX_LOGGED_CALLS);
  ctx.res.once('finish', () => {
    call.status = ctx.res.statusCode;
  });
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) call.aborted = true;
  });
  return call;
}

/**
 * Counts the call as in progress for `accountId` until its response is finished or its socket
 * closes, so a test can assert how many calls of one account an upstream ever had at once
 * (a gateway's concurrency limit, across all its instances).
 */
export function countAtOnce(ctx: Ctx, accountId: string): void {
  let count = ctx.state.atOnce.get(accountId);
  if (!count) {
    count = { now: 0, most: 0 };
    ctx.state.atOnce.set(accountId, count);
  }
  const counted = count;
  counted.now += 1;
  counted.most = Math.max(counted.most, counted.now);
  ctx.res.once('close', () => {
    counted.now -= 1;
  });
}

const asString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** Copies image parameters as sent into the log, before validation, so rejected calls show them. */
export function noteImageParams(call: SimCall, raw: Record<string, unknown>): void {
  call.model = asString(raw.model);
  call.prompt = asString(raw.prompt);
  call.size = asString(raw.size);
  call.quality = asString(raw.quality);
  call.outputFormat = asString(raw.output_format);
  const n = Number(raw.n ?? 1);
  call.n = Number.isFinite(n) ? n : 1;
  const partials = Number(raw.partial_images ?? 0);
  call.partialImages = Number.isFinite(partials) ? partials : 0;
  call.stream = raw.stream === true || raw.stream === 'true';
}
