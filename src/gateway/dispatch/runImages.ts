import { ownValue } from '../../shared/ownProperty';
import { randomUUID } from 'node:crypto';
import { addUsage, emptyUsage, type TokenUsage } from '../../shared/imageParams';
import { formatSize } from '../../shared/sizeRules';
import { ApiError, upstreamFailed } from '../core/errors';
import type { SpooledImage } from '../core/domain';
import { UpstreamError } from '../core/upstreamError';
import type {
  ImageJob,
  ImageOutcome,
  ImageSink,
  ImageUpstream,
  PartialImage,
} from '../upstream/types';
import { checkDeliveredInfo, checkDelivery, type Delivered } from './deliveryCheck';
import { dispatchCall, toCallerError, type CallTarget, type Dispatch } from './dispatchCall';
import {
  LADDER,
  ladderBudget,
  ladderFor,
  ladderSpent,
  stepPlan,
  upscale,
  type LadderStep,
  type StepPlan,
} from './ladder';
import { requestedPixels, upstreamTimeoutFor, weightOf } from './sizeClass';
import type { RequestedSize } from '../core/requestedSize';

export interface ImageRunRequest {
  /** The job with the caller's public model id; each account maps it to its own. */
  job: ImageJob;
  /** The job's size as validation read it (`job.size` is its text, for the upstream). */
  size: RequestedSize;
  n: number;
  group: string;
  signal: AbortSignal;
  /** Strict (default): an image of another size or format than asked is an error, not a reply. */
  strict: boolean;
  ladder: boolean;
  onPartial?: (imageIndex: number, partial: PartialImage) => void;
  /** Called as each image completes, in completion order (streaming sends it at once). */
  onImage?: (imageIndex: number, image: DeliveredImage) => void;
  /**
   * Offered each image once its header has passed the delivery check, while the rest is still
   * arriving; a returned sink gets the base64 text piece by piece. From then on the image is
   * committed: a failure is not retried elsewhere (the caller has half an answer).
   */
  onImageStart?: (imageIndex: number, start: ImageStartInfo) => ImageSink | null;
  /** Told before each upstream call starts (retries and ladder steps too): usage keeps a pending row. */
  onDispatch?: (imageIndex: number, account: { id: string; name: string }) => void;
  /** Each upstream answer, an image or a failure, with the id the upstream gave it (or none). */
  onAnswered?: (upstreamRequestId: string | null | undefined) => void;
  now: () => number;
  /** The client request, shared by its n images and their ladder steps (outage evidence). */
  requestId?: string;
}

export interface DeliveredImage {
  outcome: ImageOutcome;
  delivered: Delivered;
  /** True when lenient mode passed on an image that differs from the request. */
  mismatch: boolean;
  account: { id: string; name: string };
  /** The ladder step that delivered it, when the ladder was in use. */
  fallbackStep: 1 | 2 | 3 | null;
  /** Tokens of this image, failed ladder steps included. */
  usage: TokenUsage;
  /** The image's text already written to a file while it streamed through (for the gallery). */
  spooled?: SpooledImage;
}

export interface ImageStartInfo {
  delivered: Delivered;
  /** The upstream's `created`, when it came before the image. */
  created: number | null;
}

export interface ImageRunResult {
  images: DeliveredImage[];
  usage: TokenUsage;
}

/** A failed run still reports what the upstream billed, so the usage record is complete. */
export class ImageRunError extends Error {
  constructor(
    readonly apiError: ApiError,
    readonly usage: TokenUsage,
    readonly images: DeliveredImage[],
    readonly accounts: Array<{ id: string; name: string }>,
    readonly delivered: Delivered | null,
  ) {
    super(apiError.message);
  }
}

/** An image the upstream made (and billed) but that we refuse to pass on. */
class DeliveryError extends Error {
  constructor(
    readonly apiError: ApiError,
    readonly usage: TokenUsage,
    readonly delivered: Delivered | null,
    readonly account: { id: string; name: string },
  ) {
    super(apiError.message);
  }
}

/** A failed image with what it cost on the way. */
class ImageFailure extends Error {
  constructor(
    readonly reason: unknown,
    readonly usage: TokenUsage,
    readonly accounts: Array<{ id: string; name: string }>,
    readonly delivered: Delivered | null,
  ) {
    super('image failed');
  }
}

/**
 * Makes n images as n single-image upstream calls in parallel, each dispatched on its own (so
 * they spread over accounts within the concurrency rules). Single-image calls make each image its
 * own unit of retry and billing (spec 4.1). The caller gets all n images or an error: never fewer.
 */
export async function runImages(d: Dispatch, req: ImageRunRequest): Promise<ImageRunResult> {
  const request = { ...req, requestId: req.requestId ?? randomUUID() };
  const settled = await Promise.allSettled(
    Array.from({ length: req.n }, (_, i) => oneImage(d, request, i)),
  );
  let usage = emptyUsage();
  const images: DeliveredImage[] = [];
  const accounts: Array<{ id: string; name: string }> = [];
  const failures: ImageFailure[] = [];
  for (const result of settled) {
    if (result.status === 'fulfilled') {
      images.push(result.value);
      accounts.push(result.value.account);
      usage = addUsage(usage, result.value.usage);
    } else {
      const failure = result.reason as ImageFailure;
      failures.push(failure);
      accounts.push(...failure.accounts);
      usage = addUsage(usage, failure.usage);
    }
  }
  if (failures.length === 0) return { images, usage };
  const first = failures[0]!;
  const firstError = callerError(first.reason, req.now());
  if (req.n > 1 && images.length > 0) {
    const error = upstreamFailed(
      'upstream_partial_failure',
      `${images.length} of ${req.n} images were generated; the others failed (${firstError.message}). No images were returned so none is silently missing.`,
      { 'x-should-retry': 'false' },
    );
    throw new ImageRunError(error, usage, images, accounts, first.delivered);
  }
  throw new ImageRunError(firstError, usage, images, accounts, first.delivered);
}

function callerError(cause: unknown, now: number): ApiError {
  if (cause instanceof DeliveryError) return cause.apiError;
  return (
    toCallerError(cause, now) ??
    upstreamFailed('upstream_bad_response', cause instanceof Error ? cause.message : String(cause))
  );
}

async function oneImage(
  d: Dispatch,
  req: ImageRunRequest,
  imageIndex: number,
): Promise<DeliveredImage> {
  if (!req.ladder) {
    const step: LadderStep = {
      step: 1,
      size: req.size,
      quality: req.job.quality,
      upscaleTo: null,
    };
    try {
      const image = await attempt(d, req, imageIndex, step, null);
      return { ...image, fallbackStep: null };
    } catch (error) {
      if (error instanceof DeliveryError)
        throw failureOf(error, error.usage, [error.account], error.delivered);
      throw failureOf(error, emptyUsage(), [], null);
    }
  }
  const steps = ladderFor(req.size, req.job.quality);
  if (steps.length === 1) {
    // Too small for the ladder: served like any request.
    return oneImage(d, { ...req, ladder: false }, imageIndex);
  }
  const budget = ladderBudget(d.timeouts(), d.now());
  let consumed = emptyUsage();
  const accounts: Array<{ id: string; name: string }> = [];
  let lastError: unknown = null;
  let lastDelivered: Delivered | null = null;
  let avoid: ReadonlySet<string> = new Set<string>();
  for (const [i, step] of steps.entries()) {
    const later = steps.length - i - 1;
    const plan = stepPlan(budget, step, later, d.timeouts(), d.now, avoid);
    if (!plan) continue;
    try {
      const image = await attempt(d, req, imageIndex, step, plan);
      return { ...image, usage: addUsage(consumed, image.usage), fallbackStep: step.step };
    } catch (error) {
      lastError = error;
      if (error instanceof DeliveryError) {
        consumed = addUsage(consumed, error.usage);
        lastDelivered = error.delivered;
        plan.failedOn.set(error.account.id, error.account);
      }
      for (const account of plan.failedOn.values())
        if (!accounts.some((a) => a.id === account.id)) accounts.push(account);
      if (!worthNextStep(error) || (error instanceof UpstreamError && error.final)) break;
      avoid = new Set(plan.failedOn.keys());
    }
  }
  if (lastError === null) lastError = ladderSpent(budget);
  throw failureOf(lastError, consumed, accounts, lastDelivered);
}

/** An image that failed at every step it tried, with what the failed steps cost. */
function failureOf(
  error: unknown,
  consumed: TokenUsage,
  accounts: Array<{ id: string; name: string }>,
  delivered: Delivered | null,
): ImageFailure {
  return new ImageFailure(error, consumed, accounts, delivered);
}

async function attempt(
  d: Dispatch,
  req: ImageRunRequest,
  imageIndex: number,
  step: LadderStep,
  plan: StepPlan | null,
): Promise<Omit<DeliveredImage, 'fallbackStep'>> {
  const target: CallTarget = {
    group: req.group,
    pixels: requestedPixels(step.size),
    weight: weightOf(step.size),
    signal: req.signal,
    request: req.requestId,
  };
  if (plan) {
    target.maxRetries = LADDER.retriesPerStep;
    target.calls = plan.calls;
    target.avoid = plan.avoid;
  }
  const outputFormat = req.job.outputFormat ?? 'png';
  const { value } = await dispatchCall(d, target, async (upstream: ImageUpstream) => {
    const account = { id: upstream.account.id, name: upstream.account.name };
    const timeoutMs = plan ? plan.timeoutMs() : upstreamTimeoutFor(step.size, d.timeouts());
    if (timeoutMs < LADDER.minCallMs) throw ladderSpent(plan!.budget);
    // Only a call that really goes out leaves a pending usage row.
    req.onDispatch?.(imageIndex, account);
    const job: ImageJob = {
      ...req.job,
      model: ownValue(upstream.account.modelMap, req.job.model) ?? req.job.model,
      size: step.size.text,
      quality: step.quality,
      variant: imageIndex,
    };
    let committed = false;
    const onImageStart = req.onImageStart;
    let outcome: ImageOutcome;
    try {
      outcome = await upstream.generateImage(job, {
        signal: req.signal,
        timeoutMs,
        onPartial:
          req.onPartial && !step.upscaleTo ? (p) => req.onPartial?.(imageIndex, p) : undefined,
        onImageStart:
          onImageStart && !step.upscaleTo
            ? (head) => {
                const verdict = checkDeliveredInfo(head.info, { size: step.size, outputFormat });
                // A refused image is read to the end, so its error carries the billed usage.
                if ('error' in verdict) return null;
                const sink = onImageStart(imageIndex, {
                  delivered: verdict.delivered,
                  created: head.created,
                });
                committed = sink !== null;
                return sink;
              }
            : undefined,
      });
    } catch (error) {
      if (error instanceof UpstreamError) req.onAnswered?.(error.upstreamRequestId);
      if (error instanceof UpstreamError && !error.final) plan?.failedOn.set(account.id, account);
      if (committed && error instanceof UpstreamError)
        throw new UpstreamError(error.failure, {
          final: true,
          upstreamRequestId: error.upstreamRequestId,
        });
      throw error;
    }
    req.onAnswered?.(outcome.upstreamRequestId);
    const check = checkDelivery(outcome, { size: step.size, outputFormat });
    if ('error' in check) {
      if (req.strict || !check.delivered)
        throw new DeliveryError(check.error, outcome.usage, check.delivered, account);
      return { outcome, delivered: check.delivered, mismatch: true, account, usage: outcome.usage };
    }
    return { outcome, delivered: check.delivered, mismatch: false, account, usage: outcome.usage };
  });
  if (step.upscaleTo) {
    const b64 = await upscale(
      value.outcome.b64,
      step.upscaleTo,
      outputFormat,
      req.job.outputCompression,
    );
    value.outcome = { ...value.outcome, b64, size: formatSize(step.upscaleTo) };
    value.delivered = { ...step.upscaleTo, format: outputFormat };
    value.mismatch = false;
  }
  req.onImage?.(imageIndex, { ...value, fallbackStep: null });
  return value;
}

/** The ladder goes down a step for failures a smaller or cheaper image may avoid. */
function worthNextStep(error: unknown): boolean {
  if (error instanceof DeliveryError) return true;
  if (error instanceof UpstreamError) {
    const f = error.failure;
    if (f.kind === 'http') return f.status >= 500;
    return [
      'no_image',
      'timeout',
      'network',
      'bad_response',
      'usage_limit',
      'rate_limited',
    ].includes(f.kind);
  }
  if (error instanceof ApiError) return error.code === 'size_not_available' || error.status === 429;
  return false;
}
