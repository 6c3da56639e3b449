import type { Response } from 'express';
import { formatSize } from '../../../shared/sizeRules';
import type { Dispatcher } from '../../dispatch/dispatchCall';
import { checkPrompt, contentPolicyError, type FilterMode } from '../../policy/contentFilter';
import { ImageRunError, runImages, type DeliveredImage } from '../../dispatch/runImages';
import type { ImageJob, InputImage } from '../../upstream/types';
import type { UsageDraft } from '../../usage/draft';
import type { ImageOptions } from '../../validation/imageOptions';
import { reserveKeyLimits } from '../../limits/middleware';
import type { AuthenticatedKey } from '../auth';
import { imageEventPieces, startImageEvent, startImagesJson, writeImagesJson } from '../imageReply';
import { openSse } from '../sse';
import { imagePassThrough, type PassThroughDeps } from './imagePassThrough';

export interface ImagePolicy {
  /** Strict delivered-size mode (default on): a different size or format is a 502. */
  strictDelivery: () => boolean;
  /** The fallback ladder for everyone (keys and a request header can also turn it on). */
  ladderForAll: () => boolean;
  /** The content pre-filter of spec 8.3.4. */
  contentFilter: () => FilterMode;
}

export interface ServeImagesDeps extends PassThroughDeps {
  dispatcher: Dispatcher;
  policy: ImagePolicy;
  /** Sees every successful batch of images (the gallery keeps them once the reply is over). */
  onImagesDelivered?: (delivery: ImageDelivery) => void;
}

/** A request's images, as delivered, and how they were asked for. */
export interface ImageDelivery {
  res: Response;
  draft: UsageDraft;
  operation: 'generate' | 'edit';
  options: ImageOptions;
  mask?: InputImage;
  images: DeliveredImage[];
  /** false when the caller left before the reply could be written. */
  connected: boolean;
}

/** `x-atelier-fallback: ladder` turns the fallback ladder on for one request. */
export const LADDER_HEADER = 'x-atelier-fallback';

/**
 * The shared path of generations and edits: fan out n single-image calls, then answer with one
 * JSON body or an event stream.
 *
 * Streaming with n > 1: all n images are made in parallel and their events interleave on one
 * stream. Every event carries `image_index` (0-based, which image it belongs to) and each image
 * ends with its own `*.completed` event, so a client sees exactly n completed events.
 */
export async function serveImages(
  res: Response,
  deps: ServeImagesDeps,
  input: {
    operation: 'generate' | 'edit';
    options: ImageOptions;
    images: InputImage[];
    mask?: InputImage;
  },
): Promise<void> {
  const { options } = input;
  const draft = res.locals.usage as UsageDraft;
  // Before anything goes upstream: a refused prompt costs no tokens and is recorded with none.
  const verdict = checkPrompt(options.prompt, deps.policy.contentFilter());
  if (!verdict.allowed) throw contentPolicyError(verdict);
  // The key's budget and images per day, against the estimate: still before any upstream work.
  reserveKeyLimits(res, {
    model: options.model,
    prompt: options.prompt,
    size: options.size,
    quality: options.quality,
    n: options.n,
    partialImages: options.stream ? options.partialImages : 0,
    inputImages: input.images,
  });
  const signal = res.locals.signal as AbortSignal;
  const key = res.locals.apiKey as AuthenticatedKey;
  const job: ImageJob = {
    operation: input.operation,
    model: options.model,
    prompt: options.prompt,
    size: options.size,
    quality: options.quality,
    outputFormat: options.outputFormat,
    outputCompression: options.outputCompression,
    background: options.background,
    moderation: options.moderation,
    partialImages: options.stream ? options.partialImages : 0,
    user: options.user,
    images: input.images,
    mask: input.mask,
  };
  Object.assign(draft, {
    model: options.model,
    size: options.size,
    quality: options.quality ?? 'auto',
    outputFormat: options.outputFormat,
    n: options.n,
    stream: options.stream,
    user: options.user ?? null,
  });
  const eventPrefix = input.operation === 'generate' ? 'image_generation' : 'image_edit';
  const requested = {
    size: options.size,
    quality: options.quality ?? 'auto',
    background: options.background ?? 'auto',
    outputFormat: options.outputFormat,
  };
  const tagged = (fields: Record<string, unknown>, imageIndex: number) =>
    options.n > 1 ? { ...fields, image_index: imageIndex } : fields;
  const ladder =
    key.fallbackLadder ||
    deps.policy.ladderForAll() ||
    String(res.req.headers[LADDER_HEADER] ?? '').toLowerCase() === 'ladder';

  // The fields after the image in a `*.completed` event, from what was really delivered.
  const completedFields = (image: DeliveredImage) => ({
    created_at: image.outcome.created,
    size: formatSize(image.delivered),
    quality: concrete(image.outcome.quality) ?? requested.quality,
    background: concrete(image.outcome.background) ?? requested.background,
    output_format: image.delivered.format,
    usage: image.usage,
  });

  const sse = options.stream ? openSse(res) : null;
  // One image without the ladder (which may upscale) streams through as it arrives, as a JSON
  // reply or as its stream's completed event; what must be whole first (n images, a ladder
  // step, lenient headers) is written at the end.
  const pass =
    options.n === 1 && !ladder
      ? imagePassThrough(
          res,
          deps,
          sse
            ? startImageEvent(sse, `${eventPrefix}.completed`, completedFields)
            : startImagesJson(res, deps.now),
        )
      : null;
  try {
    const result = await runImages(deps.dispatcher, {
      job,
      n: options.n,
      group: key.group,
      signal,
      strict: deps.policy.strictDelivery(),
      ladder,
      now: deps.now,
      onImageStart: pass ? (i, start) => pass.onImageStart(i, start) : undefined,
      onPartial: sse
        ? (imageIndex, partial) =>
            sse.event(
              `${eventPrefix}.partial_image`,
              imageEventPieces(
                `${eventPrefix}.partial_image`,
                [partial.b64],
                tagged(
                  {
                    partial_image_index: partial.index,
                    created_at: Math.floor(deps.now() / 1000),
                    size: requested.size,
                    quality: requested.quality,
                    background: requested.background,
                    output_format: requested.outputFormat,
                  },
                  imageIndex,
                ),
              ),
            )
        : undefined,
      onImage: sse
        ? (imageIndex, image) => {
            // A streamed-through image's event is already under way; `finish` ends it.
            if (pass?.started) return;
            sse.event(
              `${eventPrefix}.completed`,
              imageEventPieces(
                `${eventPrefix}.completed`,
                image.outcome.b64,
                tagged(completedFields(image), imageIndex),
              ),
            );
          }
        : undefined,
    });
    noteResult(draft, result.images, options.model, result.usage);
    const deliver = (images: DeliveredImage[]) =>
      deps.onImagesDelivered?.({
        res,
        draft,
        operation: input.operation,
        options,
        mask: input.mask,
        images,
        connected: !res.destroyed,
      });
    const first = result.images[0]!;
    const meta = {
      created: first.outcome.created,
      background: concrete(first.outcome.background) ?? requested.background,
      model: options.model,
      outputFormat: first.delivered.format,
      quality: concrete(first.outcome.quality) ?? requested.quality,
      size: formatSize(first.delivered),
      usage: result.usage,
    };
    if (pass?.started) {
      const kept = await pass.finish(meta, first);
      if (kept) deliver([kept]);
      await pass.settle();
      sse?.end();
      return;
    }
    deliver(result.images);
    if (sse) {
      sse.end();
      return;
    }
    setDeliveryHeaders(res, result.images, options.size);
    writeImagesJson(
      res,
      meta,
      result.images.map((image) => ({
        b64: image.outcome.b64,
        revisedPrompt: image.outcome.revisedPrompt,
      })),
    );
  } catch (error) {
    if (!(error instanceof ImageRunError)) {
      if (pass?.started) res.destroy();
      throw error;
    }
    draft.parts = [{ model: options.model, usage: error.usage }];
    draft.images = error.images.length;
    noteAccounts(draft, error.accounts);
    if (error.delivered) draft.deliveredSize = formatSize(error.delivered);
    if (pass?.started) {
      await pass.fail(draft, error.apiError);
      return;
    }
    if (!sse) throw error.apiError;
    draft.streamError = {
      status: error.apiError.status,
      code: error.apiError.code,
      message: error.apiError.message,
    };
    sse.error(error.apiError);
    sse.end();
  }
}

/**
 * Lenient mode passes on an image that differs from the request; these headers say what was
 * really delivered, and which ladder step made it, so nothing is silently different.
 */
function setDeliveryHeaders(res: Response, images: DeliveredImage[], requestedSize: string): void {
  const sizes = [...new Set(images.map((i) => formatSize(i.delivered)))];
  if (images.some((i) => i.mismatch)) {
    res.setHeader('x-atelier-delivered-size', sizes.join(','));
    res.setHeader('x-atelier-requested-size', requestedSize);
  }
  const steps = images.map((i) => i.fallbackStep).filter((s) => s !== null);
  if (steps.length > 0) res.setHeader('x-atelier-fallback-step', steps.join(','));
}

function concrete(value: string | null): string | null {
  return value && value !== 'auto' ? value : null;
}

function noteResult(
  draft: UsageDraft,
  images: DeliveredImage[],
  model: string,
  usage: UsageDraft['parts'][number]['usage'],
): void {
  draft.parts = [{ model, usage }];
  draft.images = images.length;
  draft.deliveredSize = images[0] ? formatSize(images[0].delivered) : null;
  const steps = images.map((i) => i.fallbackStep).filter((s) => s !== null);
  draft.fallbackStep = steps.length > 0 ? steps.join(',') : null;
  noteAccounts(
    draft,
    images.map((i) => i.account),
  );
}

function noteAccounts(draft: UsageDraft, accounts: Array<{ id: string; name: string }>): void {
  const ids = [...new Set(accounts.map((a) => a.id))];
  const names = [...new Set(accounts.map((a) => a.name))];
  draft.accountId = ids.length ? ids.join(',') : null;
  draft.accountName = names.length ? names.join(',') : null;
}
