import type { NextFunction, Request, Response } from 'express';
import { PARENT_IMAGE_HEADER, type ImageSource } from '../../shared/admin';
import { emptyUsage } from '../../shared/imageParams';
import { IMAGE_MODELS } from '../../shared/models';
import { invalidParam } from '../core/errors';
import { scopeOf } from './requestScope';
import type { ImageBatch, ImageStore, KeptImage } from '../gallery/store';
import type { UsageNotes } from '../usage/notes';
import { inspectBase64Pieces } from '../bytes/imageInspect';
import { splitUsage } from '../imageService/responsesImages';
import type { GalleryPort, ImageDelivery, ResponsesImageDelivery } from '../imageService/types';

/**
 * `x-atelier-parent-image: <id>` on an edit made from the gallery links the new image to the one
 * it was made from. Checked before any upstream work: an unknown id is a 400, not a lost link.
 */
export function parentImage(exists: (id: string) => Promise<boolean>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const value = req.headers[PARENT_IMAGE_HEADER];
    if (value === undefined || req.method !== 'POST') {
      next();
      return;
    }
    const id = String(value).trim();
    if (!/^img_[0-9a-f]{1,64}$/.test(id) || !(await exists(id))) {
      next(
        invalidParam(
          PARENT_IMAGE_HEADER,
          `${PARENT_IMAGE_HEADER} names no image in the gallery: '${id.slice(0, 80)}'.`,
        ),
      );
      return;
    }
    scopeOf(res).madeFrom(id);
    next();
  };
}

/** The gallery's port for the request path, over its store. */
export function galleryPort(
  store: ImageStore,
  exists: (imageId: string) => Promise<boolean>,
  keepApiImages: () => boolean,
  log: (line: string) => void,
): GalleryPort {
  return {
    keeps: (caller) => caller.studioSession || keepApiImages(),
    spool: (pixels) => store.spool(pixels),
    dropUnclaimed: (spooled) => store.dropUnclaimed(spooled),
    keepImages: imageKeeper(store, keepApiImages, log),
    keepResponsesImages: responsesImageKeeper(store, keepApiImages, log),
    exists,
  };
}

/** What every delivery the gallery may keep says about its request. */
interface Delivery {
  usage: UsageNotes;
  /** The studio's own session. */
  studioSession: boolean;
  parentImageId: string | null;
  /** false when the caller left before the reply could be written. */
  connected: boolean;
}

/**
 * Decides which delivered images the gallery keeps: the studio's always, API callers' while the
 * setting is on, and always those of a caller who left before the reply (it was paid for and
 * nobody else has it). The store writes them later, off the request path.
 */
function keeper<D extends Delivery>(
  store: ImageStore,
  keepApiImages: () => boolean,
  log: (line: string) => void,
  batchOf: (delivery: D, source: ImageSource) => ImageBatch,
) {
  return (delivery: D): void => {
    const studioSession = delivery.studioSession;
    if (!studioSession && delivery.connected && !keepApiImages()) return;
    try {
      store.hold(batchOf(delivery, studioSession ? 'studio' : 'api'));
    } catch (error) {
      // The gallery is a convenience: it must never cost the caller their reply.
      log(`request ${delivery.usage.requestId}: images not kept: ${String(error)}`);
    }
  };
}

/** The images of `/v1/images/generations` and `/v1/images/edits`. */
export function imageKeeper(
  store: ImageStore,
  keepApiImages: () => boolean,
  log: (line: string) => void,
) {
  return keeper<ImageDelivery>(store, keepApiImages, log, (delivery, source) => {
    const { usage, options } = delivery;
    return {
      requestId: usage.requestId,
      source,
      endpoint: usage.endpoint,
      prompt: options.prompt,
      model: options.model,
      requestedSize: options.size.text,
      quality: options.quality ?? 'auto',
      outputCompression: options.outputCompression ?? null,
      background: options.background ?? 'auto',
      moderation: options.moderation ?? null,
      apiKeyId: usage.apiKeyId,
      parentId: delivery.parentImageId,
      mask: delivery.mask ? { bytes: delivery.mask.bytes, format: delivery.mask.format } : null,
      images: delivery.images.map((image) => ({
        b64: image.outcome.b64,
        spooled: image.spooled,
        width: image.delivered.width,
        height: image.delivered.height,
        format: image.delivered.format,
        revisedPrompt: image.outcome.revisedPrompt,
        fallbackStep: image.fallbackStep,
        usage: image.usage,
      })),
    };
  });
}

/** The gallery shows a prompt, not a whole conversation: a long `input` is cut here. */
export const MAX_KEPT_PROMPT_CHARS = 32_000;

/**
 * The images of `/v1/responses` calls. Their settings are the image tool's, the prompt is the
 * caller's `input`, and the tool's usage is shared out over the images it made. What is not a
 * PNG, JPEG or WebP (by its header) is not kept.
 */
export function responsesImageKeeper(
  store: ImageStore,
  keepApiImages: () => boolean,
  log: (line: string) => void,
) {
  return keeper<ResponsesImageDelivery>(store, keepApiImages, log, (delivery, source) => {
    const { usage, tool } = delivery;
    const usages = splitUsage(delivery.imageUsage ?? emptyUsage(), delivery.images.length);
    const images: KeptImage[] = [];
    delivery.images.forEach((image, i) => {
      const info = inspectBase64Pieces(image.b64);
      if (!info) {
        log(`request ${usage.requestId}: image ${i} of the response is not an image; not kept`);
        return;
      }
      images.push({
        b64: image.b64,
        width: info.width,
        height: info.height,
        format: info.format,
        revisedPrompt: image.revisedPrompt,
        fallbackStep: null,
        usage: usages[i]!,
      });
    });
    return {
      requestId: usage.requestId,
      source,
      endpoint: usage.endpoint,
      prompt: delivery.prompt.slice(0, MAX_KEPT_PROMPT_CHARS),
      model: tool?.model ?? IMAGE_MODELS[0],
      requestedSize: tool?.size?.text ?? 'auto',
      quality: tool?.quality ?? 'auto',
      outputCompression: tool?.outputCompression ?? null,
      background: tool?.background ?? 'auto',
      moderation: tool?.moderation ?? null,
      apiKeyId: usage.apiKeyId,
      parentId: delivery.parentImageId,
      mask: null,
      images,
    };
  });
}
