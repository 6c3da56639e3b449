/**
 * What went wrong upstream, as a closed set. Dispatch decides from the kind alone whether to
 * retry, cool an account down, or answer the caller; adapters never make that call.
 */
export type UpstreamFailure =
  | { kind: 'usage_limit'; resetAt: number | null; message: string }
  | { kind: 'rate_limited'; retryAfterMs: number | null; message: string }
  | {
      kind: 'http';
      status: number;
      code: string | null;
      message: string;
      param: string | null;
      type: string | null;
    }
  | {
      kind: 'network';
      message: string;
      /** Undici reports that no byte of the request went out: the upstream never received it. */
      unsent?: boolean;
      /**
       * The connection itself failed (refused, unresolvable, unreachable, timed out connecting):
       * nothing was sent, and the account is down, not merely a reused connection that dropped.
       */
      unreachable?: boolean;
    }
  | { kind: 'timeout'; message: string }
  | { kind: 'no_image'; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'bad_response'; message: string }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'cancelled'; message: string };

export class UpstreamError extends Error {
  readonly failure: UpstreamFailure;
  /**
   * The caller already has part of the answer (an image streamed through before the upstream
   * failed): nothing may be retried or tried elsewhere, whatever the kind.
   */
  readonly final: boolean;
  /** The id the upstream gave its failing answer (its `x-request-id`), where it answered one. */
  readonly upstreamRequestId: string | null;
  constructor(
    failure: UpstreamFailure,
    opts: { final?: boolean; upstreamRequestId?: string | null } = {},
  ) {
    super(failure.message);
    this.name = 'UpstreamError';
    this.failure = failure;
    this.final = opts.final ?? false;
    this.upstreamRequestId = opts.upstreamRequestId ?? null;
  }
}
