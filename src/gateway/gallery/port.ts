import type { ImageSource } from '../../shared/admin';
import { emptyUsage, type TokenUsage } from '../../shared/imageParams';
import { IMAGE_MODELS } from '../../shared/models';
import type { ImageSpool, SpooledImage } from '../core/domain';
import { splitUsage } from '../billing/usageShares';
import type { Base64Pieces } from '../bytes/base64Pieces';
import { inspectBase64Pieces } from '../bytes/imageInspect';
import type { ImageBatch, KeptImage } from './batch';
import type { ImageStore } from './store';

/*
 * The gallery's port: what the request path (imageService/, http/replies/) may ask of the gallery,
 * and the rule of what it keeps. The deliveries are said in the gallery's own words (what it
 * reads of them), so the image service hands over what it has and this folder imports none of it.
 */

/** The request a delivery came from, as its usage notes know it. */
export interface KeptRequest {
  readonly requestId: string;
  readonly endpoint: string;
  readonly apiKeyId: string | null;
}

/** How the images were asked for: a generation's options, or a Responses call's image tool. */
export interface KeptSettings {
  model?: string;
  size?: { text: string };
  quality?: string;
  outputCompression?: number;
  background?: string;
  moderation?: string;
}

/** One image of a generation or edit, as delivered. */
export interface KeptDeliveredImage {
  outcome: { b64: Base64Pieces; revisedPrompt: string | null };
  delivered: { width: number; height: number; format: string };
  fallbackStep: number | null;
  usage: TokenUsage;
  /** The image's text already written to a file while it streamed through. */
  spooled?: SpooledImage;
}

/** Who asked, as far as the keep rule cares. */
interface DeliveryCaller {
  usage: KeptRequest;
  /** The studio's own session (its images are always kept). */
  studioSession: boolean;
  /** The gallery image an edit was made from. */
  parentImageId: string | null;
  /** false when the caller left before the reply could be written. */
  connected: boolean;
}

/** A request's images, as delivered, and how they were asked for. */
export interface ImageDelivery extends DeliveryCaller {
  operation: 'generate' | 'edit';
  options: KeptSettings & { prompt: string; model: string; size: { text: string } };
  mask?: { bytes: Buffer; format: string };
  images: KeptDeliveredImage[];
}

/** One finished `image_generation_call` of a Responses call. */
export interface ResponsesImage {
  /** Base64 ASCII bytes: slices of what the upstream sent, never a copy. */
  b64: Base64Pieces;
  revisedPrompt: string | null;
}

/** What a Responses call made: handed over once the relay is over. */
export interface ResponsesImageDelivery extends DeliveryCaller {
  /** The validated `image_generation` tool; null when the caller sent none. */
  tool: KeptSettings | null;
  /** The caller's `input` as text. */
  prompt: string;
  images: ResponsesImage[];
  /** The image tool's usage for the whole response (`tool_usage.image_gen`). */
  imageUsage: TokenUsage | null;
}

/**
 * The gallery, as the request path sees it: one port. It says whose images it keeps, lends a
 * spool for an image that streams through, and is handed what was delivered; it writes them
 * once the request's usage record is written (it listens for that itself).
 */
export interface GalleryPort {
  /** Whether it keeps this caller's images (if not, nothing need be held for it). */
  keeps(caller: { studioSession: boolean }): boolean;
  /**
   * A file the gallery's copy is written to while the image streams (gallery/spool.ts), for an
   * image of `pixels` (the delivered image's) at least SPOOL_MIN_PIXELS; null for a smaller one,
   * which the gallery keeps from its pieces after the reply (`keepImages`).
   */
  spool(pixels: number): ImageSpool | null;
  /** Deletes a spooled file the gallery did not take. */
  dropUnclaimed(spooled: SpooledImage): Promise<void>;
  /**
   * The images of a generation or edit. Resolves once the gallery's promise to keep them is on
   * disk (its journal): a reply that ends after that loses no image to a crash. Never rejects.
   */
  keepImages(delivery: ImageDelivery): Promise<void>;
  /** The images of a /v1/responses call (resolves as `keepImages` does). */
  keepResponsesImages(delivery: ResponsesImageDelivery): Promise<void>;
  /** Whether an image id is in the gallery (an edit's parent). */
  exists(imageId: string): Promise<boolean>;
}

/**
 * The keep rule: the studio's images always, API callers' while the setting is on, and always
 * those of a caller who left before the reply (it was paid for and nobody else has it).
 */
export function keepsImagesOf(
  caller: { studioSession: boolean; connected: boolean },
  keepApiImages: () => boolean,
): boolean {
  return caller.studioSession || !caller.connected || keepApiImages();
}

/** The gallery's port over its store. */
export function galleryPort(
  store: ImageStore,
  exists: (imageId: string) => Promise<boolean>,
  keepApiImages: () => boolean,
  log: (line: string) => void,
): GalleryPort {
  return {
    // Asked before the reply, while the caller is still there. (The caller is often a class
    // instance whose fields are getters: read, never spread.)
    keeps: (caller) =>
      keepsImagesOf({ studioSession: caller.studioSession, connected: true }, keepApiImages),
    spool: (pixels) => store.spool(pixels),
    dropUnclaimed: (spooled) => store.dropUnclaimed(spooled),
    keepImages: imageKeeper(store, keepApiImages, log),
    keepResponsesImages: responsesImageKeeper(store, keepApiImages, log),
    exists,
  };
}

/**
 * Holds the delivered images the keep rule keeps; the store writes them later, off the request
 * path.
 */
function keeper<D extends DeliveryCaller>(
  store: ImageStore,
  keepApiImages: () => boolean,
  log: (line: string) => void,
  batchOf: (delivery: D, source: ImageSource) => ImageBatch,
) {
  return (delivery: D): Promise<void> => {
    if (!keepsImagesOf(delivery, keepApiImages)) return Promise.resolve();
    try {
      return store.hold(batchOf(delivery, delivery.studioSession ? 'studio' : 'api'));
    } catch (error) {
      // The gallery is a convenience: it must never cost the caller their reply.
      log(`request ${delivery.usage.requestId}: images not kept: ${String(error)}`);
      return Promise.resolve();
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
