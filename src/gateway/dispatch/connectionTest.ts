import { request, type Dispatcher } from 'undici';
import type { UpstreamPool } from './pool';
import { UpstreamError } from '../core/upstreamError';
import { failureFromThrown } from '../upstream/httpFailure';

/** A connection test waits this long at most: a person is looking at the button. */
export const CONNECTION_TEST_TIMEOUT_MS = 10_000;

export interface ConnectionTestResult {
  ok: boolean;
  /** What was seen, in a sentence: the upstream's answer or why it could not be reached. */
  detail: string;
  latencyMs: number;
}

/**
 * The Accounts page's "Test connection": one cheap call to the account (its model list with its
 * credential, or for adapters without one, any answer from its base URL), timed. The outcome is
 * told to the pool, so the account's status reads failing or ready at once.
 */
export async function testAccountConnection(
  deps: { pool: UpstreamPool; dispatcher: Dispatcher; now: () => number },
  id: string,
  baseUrl: string,
): Promise<ConnectionTestResult> {
  const started = deps.now();
  const signal = AbortSignal.timeout(CONNECTION_TEST_TIMEOUT_MS);
  const opts = { signal, timeoutMs: CONNECTION_TEST_TIMEOUT_MS };
  try {
    const upstream = await deps.pool.upstream(id);
    if (upstream.probe) await upstream.probe(opts);
    else await reach(baseUrl, deps.dispatcher, opts);
    deps.pool.noteTest(id, null);
    return { ok: true, detail: 'The account answered.', latencyMs: deps.now() - started };
  } catch (error) {
    const failure =
      error instanceof UpstreamError ? error.failure : failureFromThrown(error, signal).failure;
    // Our own timeout aborts the signal: say it timed out, not that someone cancelled.
    const detail =
      failure.kind === 'cancelled'
        ? `no answer within ${CONNECTION_TEST_TIMEOUT_MS / 1000} s`
        : failure.message;
    deps.pool.noteTest(
      id,
      failure.kind === 'cancelled' ? { kind: 'timeout', message: detail } : failure,
    );
    return { ok: false, detail, latencyMs: deps.now() - started };
  }
}

/** Any HTTP answer from the base URL shows the address is reachable. */
async function reach(
  baseUrl: string,
  dispatcher: Dispatcher,
  opts: { signal: AbortSignal; timeoutMs: number },
): Promise<void> {
  const res = await request(baseUrl, {
    method: 'GET',
    dispatcher,
    signal: opts.signal,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  await res.body.dump();
}
