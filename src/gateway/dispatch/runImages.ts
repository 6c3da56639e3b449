import { addUsage, emptyUsage, type TokenUsage } from '../../shared/imageParams';
import { upstreamFailed, type ApiError } from '../errors';
import { UpstreamError } from '../upstream/errors';
import type { ImageJob, ImageOutcome, ImageUpstream, PartialImage } from '../upstream/types';
import { checkDelivery, type Delivered } from './deliveryCheck';
import { failureToApiError } from './failureToApiError';
import type { UpstreamPool } from './pool';

export interface ImageRunRequest {
  job: ImageJob;
  n: number;
  signal: AbortSignal;
  timeoutMs: number;
  onPartial?: (imageIndex: number, partial: PartialImage) => void;
  /** Called as each image completes, in completion order (streaming sends it at once). */
  onImage?: (imageIndex: number, outcome: ImageOutcome, delivered: Delivered) => void;
  now: () => number;
}

export interface ImageRunResult {
  outcomes: ImageOutcome[];
  delivered: Delivered[];
  usage: TokenUsage;
  accounts: ImageUpstream[];
}

/** A failed run still reports what the upstream billed, so the usage record is complete. */
export class ImageRunError extends Error {
  constructor(
    readonly apiError: ApiError,
    readonly usage: TokenUsage,
    readonly imagesDelivered: number,
    readonly accounts: ImageUpstream[],
    readonly delivered: Delivered[],
  ) {
    super(apiError.message);
  }
}

/**
 * Runs n single-image upstream calls in parallel. Single-image calls make each image its own unit
 * of retry and billing (spec 4.1) and keep n working on upstreams that ignore `n`. The caller gets
 * all n images or an error: never silently fewer.
 */
export async function runImages(pool: UpstreamPool, req: ImageRunRequest): Promise<ImageRunResult> {
  const settled = await Promise.allSettled(
    Array.from({ length: req.n }, async (_, imageIndex) => {
      const upstream = pool.pick();
      try {
        const outcome = await upstream.generateImage(req.job, {
          signal: req.signal,
          timeoutMs: req.timeoutMs,
          onPartial: req.onPartial ? (p) => req.onPartial?.(imageIndex, p) : undefined,
        });
        const check = checkDelivery(outcome, {
          size: req.job.size,
          outputFormat: req.job.outputFormat ?? 'png',
        });
        if ('error' in check)
          throw new DeliveryError(check.error, outcome.usage, check.delivered, upstream);
        req.onImage?.(imageIndex, outcome, check.delivered);
        return { outcome, delivered: check.delivered, upstream };
      } catch (error) {
        if (error instanceof DeliveryError) throw error;
        throw Object.assign(error instanceof Error ? error : new Error(String(error)), {
          upstream,
        });
      }
    }),
  );

  let usage = emptyUsage();
  const outcomes: ImageOutcome[] = [];
  const delivered: Delivered[] = [];
  const accounts: ImageUpstream[] = [];
  const failures: ApiError[] = [];
  for (const result of settled) {
    if (result.status === 'fulfilled') {
      outcomes.push(result.value.outcome);
      delivered.push(result.value.delivered);
      accounts.push(result.value.upstream);
      usage = addUsage(usage, result.value.outcome.usage);
      continue;
    }
    const reason: unknown = result.reason;
    const upstream = (reason as { upstream?: ImageUpstream }).upstream;
    if (upstream) accounts.push(upstream);
    if (reason instanceof DeliveryError) {
      // A delivered image was produced and billed upstream even when we refuse to pass it on.
      usage = addUsage(usage, reason.usage);
      if (reason.delivered) delivered.push(reason.delivered);
      failures.push(reason.apiError);
    } else if (reason instanceof UpstreamError) {
      failures.push(failureToApiError(reason.failure, req.now()));
    } else {
      failures.push(
        upstreamFailed(
          'upstream_bad_response',
          reason instanceof Error ? reason.message : String(reason),
        ),
      );
    }
  }
  if (failures.length === 0) return { outcomes, delivered, usage, accounts };
  const first = failures[0]!;
  if (req.n > 1 && outcomes.length > 0) {
    const error = upstreamFailed(
      'upstream_partial_failure',
      `${outcomes.length} of ${req.n} images were generated; the others failed (${first.message}). No images were returned so none is silently missing.`,
      { 'x-should-retry': 'false' },
    );
    throw new ImageRunError(error, usage, outcomes.length, accounts, delivered);
  }
  throw new ImageRunError(first, usage, outcomes.length, accounts, delivered);
}

class DeliveryError extends Error {
  constructor(
    readonly apiError: ApiError,
    readonly usage: TokenUsage,
    readonly delivered: Delivered | null,
    readonly upstream: ImageUpstream,
  ) {
    super(apiError.message);
  }
}
