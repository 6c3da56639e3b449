import type { TokenUsage } from '../../shared/imageParams';
import { formatSize } from '../../shared/sizeRules';
import type { Dispatch } from '../dispatch/dispatchCall';
import { ImageRunError, runImages, type DeliveredImage } from '../dispatch/runImages';
import type { Delivered } from '../usage/notes';
import type { GalleryPort } from '../gallery/port';
import type { ImagePlan, ImageRunReply, KeyLimitsPort, LiveImageSettings } from './types';

/** A value the upstream stated, unless it is missing or still `auto`. */
export function concrete(value: string | null): string | null {
  return value && value !== 'auto' ? value : null;
}

export interface ImageServiceDeps {
  dispatch: Dispatch;
  settings: LiveImageSettings;
  /** Each key's budget and images per day: the estimate is reserved before any upstream call. */
  limits: KeyLimitsPort;
  now: () => number;
  /** Sees every successful batch of images (it keeps them once the usage record is written). */
  gallery?: Pick<GalleryPort, 'keepImages'>;
}

/**
 * Runs a plan: n single-image calls fanned out (dispatch/runImages.ts), each step told to the
 * usage notes, the images handed to the reply as they come and the outcome once they are all in.
 */
export async function runImagePlan(
  deps: ImageServiceDeps,
  plan: ImagePlan,
  reply: ImageRunReply,
): Promise<void> {
  const { request, caller } = plan;
  const { options } = request;
  const usage = caller.usage;
  try {
    const result = await runImages(deps.dispatch, {
      job: plan.job,
      size: options.size,
      n: options.n,
      group: caller.key.group,
      signal: caller.signal,
      strict: deps.settings.strictDelivery(),
      ladder: plan.ladder,
      now: deps.now,
      onDispatch: (_imageIndex, account) => usage.dispatched(account),
      onAnswered: (upstreamRequestId) => usage.answered(upstreamRequestId),
      onImageStart: reply.onImageStart,
      onPartial: reply.onPartial,
      onImage: reply.onImage,
    });
    usage.delivered(
      deliveredNote(result.images, options.model, result.usage, plan.requested.quality),
    );
    const first = result.images[0]!;
    const meta = {
      created: first.outcome.created,
      background: concrete(first.outcome.background) ?? plan.requested.background,
      model: options.model,
      outputFormat: first.delivered.format,
      quality: concrete(first.outcome.quality) ?? plan.requested.quality,
      size: formatSize(first.delivered),
      usage: result.usage,
    };
    const keep = (images: DeliveredImage[]) =>
      deps.gallery?.keepImages({
        usage,
        operation: request.operation,
        options,
        mask: request.mask,
        images,
        studioSession: caller.studioSession,
        parentImageId: caller.parentImageId,
        connected: caller.connected(),
      });
    await reply.succeeded({ images: result.images, usage: result.usage, meta }, keep);
  } catch (error) {
    if (!(error instanceof ImageRunError)) {
      reply.broken();
      throw error;
    }
    usage.delivered({
      parts: [{ model: options.model, usage: error.usage }],
      images: error.images.length,
      accounts: error.accounts,
      ...(error.delivered ? { deliveredSize: formatSize(error.delivered) } : {}),
    });
    if (!reply.committed) throw error.apiError;
    // Headers went out with a 200: the reply carries the error, the record must say it failed.
    usage.failed({
      status: error.apiError.status,
      code: error.apiError.code,
      message: error.apiError.message,
    });
    await reply.failed(error.apiError);
  }
}

/** The usage note of a successful run: what was delivered, by which accounts and ladder steps. */
function deliveredNote(
  images: DeliveredImage[],
  model: string,
  usage: TokenUsage,
  requestedQuality: string,
): Delivered {
  const steps = images.map((i) => i.fallbackStep).filter((s) => s !== null);
  const first = images[0];
  return {
    parts: [{ model, usage }],
    images: images.length,
    accounts: images.map((i) => i.account),
    deliveredSize: first ? formatSize(first.delivered) : null,
    // As the reply says it: the upstream's own word, else what was asked at the step that made it.
    deliveredQuality: first ? (concrete(first.outcome.quality) ?? requestedQuality) : null,
    fallbackStep: steps.length > 0 ? steps.join(',') : null,
  };
}
