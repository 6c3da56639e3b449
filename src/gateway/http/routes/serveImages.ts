import type { Response } from 'express';
import type { TokenUsage } from '../../../shared/imageParams';
import { formatSize } from '../../../shared/sizeRules';
import type { Dispatcher } from '../../dispatch/dispatchCall';
import { checkPrompt, contentPolicyError, type FilterMode } from '../../policy/contentFilter';
import { ImageRunError, runImages, type DeliveredImage } from '../../dispatch/runImages';
import type { ImageJob, InputImage } from '../../upstream/types';
import type { Delivered, UsageNotes } from '../../usage/notes';
import type { ImageOptions } from '../../validation/imageOptions';
import { reserveKeyLimits } from '../../limits/middleware';
import type { AuthenticatedKey } from '../auth';
import {
  imageEventPieces,
  startImageEvent,
  startImagesJson,
  writeImagesJson,
  type ImageReplyMeta,
} from '../replies/imagesJson';
import { ERROR_CODES } from '../../../shared/errors';
import { invalidParam } from '../../errors';
import type { UrlImages } from '../../images/urlImages';
import { openSse } from '../replies/sse';
import { usageNotes } from '../usageContext';
import { imagePassThrough, type PassThroughDeps } from '../replies/passThrough';

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
  /** Where `response_format: "url"` images are published (absent: such requests are refused). */
  urlImages?: UrlImages;
}

/** Says what was accepted for an older client but ignored or read differently. */
export const WARNING_HEADER = 'x-atelier-warning';

/** A request's images, as delivered, and how they were asked for. */
export interface ImageDelivery {
  res: Response;
  usage: UsageNotes;
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
  const usage = usageNotes(res);
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
  const urlImages = options.responseFormat === 'url' ? deps.urlImages : undefined;
  if (options.responseFormat === 'url' && !urlImages) {
    throw invalidParam(
      'response_format',
      "response_format 'url' is not available on this gateway: use b64_json",
      ERROR_CODES.unsupportedParameter,
    );
  }
  if (options.notices) res.setHeader(WARNING_HEADER, options.notices.join('; '));
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
  usage.requested({
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
    options.n === 1 && !ladder && !urlImages
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
      onDispatch: (_imageIndex, account) => usage.dispatched(account),
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
    usage.delivered(deliveredNote(result.images, options.model, result.usage, requested.quality));
    const deliver = (images: DeliveredImage[]) =>
      deps.onImagesDelivered?.({
        res,
        usage,
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
    if (urlImages) {
      await writeImageUrls(res, urlImages, meta, result.images);
      return;
    }
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
    usage.delivered({
      parts: [{ model: options.model, usage: error.usage }],
      images: error.images.length,
      accounts: error.accounts,
      ...(error.delivered ? { deliveredSize: formatSize(error.delivered) } : {}),
    });
    if (pass?.started) {
      await pass.fail(usage, error.apiError);
      return;
    }
    if (!sse) throw error.apiError;
    usage.failed({
      status: error.apiError.status,
      code: error.apiError.code,
      message: error.apiError.message,
    });
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

/**
 * The spec 2.1 body with `url` where `b64_json` would be: each image is published at a signed URL
 * on the address the client called (the Host header, which the host guard already checked).
 */
async function writeImageUrls(
  res: Response,
  urlImages: UrlImages,
  meta: ImageReplyMeta,
  images: DeliveredImage[],
): Promise<void> {
  const origin = `http://${res.req.headers.host}`;
  const published = await Promise.all(
    images.map((image) => urlImages.publish(image.outcome.b64, image.delivered.format)),
  );
  res.json({
    created: meta.created,
    data: published.map((p, i) => {
      const revised = images[i]!.outcome.revisedPrompt;
      return revised === null
        ? { url: origin + p.path }
        : { url: origin + p.path, revised_prompt: revised };
    }),
    background: meta.background,
    model: meta.model,
    output_format: meta.outputFormat,
    quality: meta.quality,
    size: meta.size,
    usage: meta.usage,
  });
}

function concrete(value: string | null): string | null {
  return value && value !== 'auto' ? value : null;
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
