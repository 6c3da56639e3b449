import { addUsage, emptyUsage, type TokenUsage } from '../../shared/imageParams';
import { formatSize } from '../../shared/sizeRules';
import { ApiError, upstreamFailed } from '../errors';
import type { SpooledImage } from '../images/spool';
import { UpstreamError } from '../upstream/errors';
import type {
  ImageJob,
  ImageOutcome,
  ImageSink,
  ImageUpstream,
  PartialImage,
} from '../upstream/types';
import { checkDeliveredInfo, checkDelivery, type Delivered } from './deliveryCheck';
import { dispatchCall, toCallerError, type Dispatcher } from './dispatchCall';
import { ladderFor, upscale, type LadderStep } from './ladder';
import { upstreamTimeoutFor } from './timeouts';
import { requestedPixels, weightOf } from './weights';

export interface ImageRunRequest {
  /** The job with the caller's public model id; each account maps it to its own. */
  job: ImageJob;
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
  now: () => number;
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
export async function runImages(d: Dispatcher, req: ImageRunRequest): Promise<ImageRunResult> {
  const settled = await Promise.allSettled(
    Array.from({ length: req.n }, (_, i) => oneImage(d, req, i)),
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
  d: Dispatcher,
  req: ImageRunRequest,
  imageIndex: number,
): Promise<DeliveredImage> {
  const steps: LadderStep[] = req.ladder
    ? ladderFor(req.job.size, req.job.quality)
    : [{ step: 1, size: req.job.size, quality: req.job.quality, upscaleTo: null }];
  let consumed = emptyUsage();
  const accounts: Array<{ id: string; name: string }> = [];
  let lastError: unknown = null;
  let lastDelivered: Delivered | null = null;
  for (const step of steps) {
    try {
      const image = await attempt(d, req, imageIndex, step);
      const usage = addUsage(consumed, image.usage);
      return { ...image, usage, fallbackStep: steps.length > 1 ? step.step : null };
    } catch (error) {
      lastError = error;
      if (error instanceof DeliveryError) {
        consumed = addUsage(consumed, error.usage);
        accounts.push(error.account);
        lastDelivered = error.delivered;
      }
      if (!worthNextStep(error) || (error instanceof UpstreamError && error.final)) break;
    }
  }
  throw new ImageFailure(lastError, consumed, accounts, lastDelivered);
}

async function attempt(
  d: Dispatcher,
  req: ImageRunRequest,
  imageIndex: number,
  step: LadderStep,
): Promise<Omit<DeliveredImage, 'fallbackStep'>> {
  const target = {
    group: req.group,
    pixels: requestedPixels(step.size),
    weight: weightOf(step.size),
    signal: req.signal,
  };
  const outputFormat = req.job.outputFormat ?? 'png';
  const { value } = await dispatchCall(d, target, async (upstream: ImageUpstream) => {
    const account = { id: upstream.account.id, name: upstream.account.name };
    const job: ImageJob = {
      ...req.job,
      model: upstream.account.modelMap[req.job.model] ?? req.job.model,
      size: step.size,
      quality: step.quality,
      variant: imageIndex,
    };
    let committed = false;
    const onImageStart = req.onImageStart;
    let outcome: ImageOutcome;
    try {
      outcome = await upstream.generateImage(job, {
        signal: req.signal,
        timeoutMs: upstreamTimeoutFor(step.size, d.timeouts()),
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
      if (committed && error instanceof UpstreamError)
        throw new UpstreamError(error.failure, { final: true });
      throw error;
    }
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
