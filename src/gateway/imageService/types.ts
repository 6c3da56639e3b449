import type { TokenUsage } from '../../shared/imageParams';
import type { DeliveredImage, ImageStartInfo } from '../dispatch/runImages';
import type { ApiError } from '../core/errors';
import type { KeyLimiter, LimitedKey } from '../limits/limiter';
import type { FilterMode } from '../contentFilter/checkPrompt';
import type { ImageJob, ImageSink, InputImage, PartialImage } from '../upstream/types';
import type { UsageNotes } from '../usage/notes';
import type { ImageOptions } from '../validation/imageOptions';
import type { ImageToolOptions } from '../validation/responsesRequest';
import type { Base64Pieces } from '../bytes/base64Pieces';
import type { ImageSpool, SpooledImage } from '../core/domain';

/*
 * The words of the image service (run an image request -> an image run), in one place: what goes
 * in (a request and its caller), what it decides (a plan), what comes out (a run) and what it asks
 * of the reply that turns the run into bytes (http/replies/).
 */

/** The settings of image handling the request path reads on each request (liveSettings.ts). */
export interface LiveImageSettings {
  /** Strict delivered-size mode (default on): a different size or format is a 502. */
  strictDelivery: () => boolean;
  /** The fallback ladder for everyone (keys and a request header can also turn it on). */
  ladderForAll: () => boolean;
  /** The content pre-filter of spec 8.3.4. */
  contentFilter: () => FilterMode;
}

/** A validated generation or edit. */
export interface ImageRequest {
  operation: 'generate' | 'edit';
  options: ImageOptions;
  images: InputImage[];
  mask?: InputImage;
}

/** Who asks, as the HTTP layer knows it (its request scope), without Express. */
export interface ImageCaller {
  requestId: string;
  key: LimitedKey & { group: string; fallbackLadder: boolean };
  /** The request asked for the fallback ladder (`x-atelier-fallback: ladder`). */
  ladderAsked: boolean;
  /** Aborted when the request's work must stop (the gateway closes, the studio cancels). */
  signal: AbortSignal;
  usage: UsageNotes;
  /** The studio's own session (its images are always kept). */
  studioSession: boolean;
  /** The gallery image an edit was made from (`x-atelier-parent-image`). */
  parentImageId: string | null;
  /**
   * The seed a simulated account draws from: the caller's `x-atelier-sim-seed`, else a fresh one
   * per request, so asking again gives new pictures (issue 22).
   */
  seed: string;
  /** false once the caller has gone. */
  connected(): boolean;
}

/** The key limits, as the service sees them: the estimate reserved before any upstream call. */
export type KeyLimitsPort = Pick<KeyLimiter, 'reserveEstimate'>;

/** What the service decided before any upstream call. */
export interface ImagePlan {
  request: ImageRequest;
  caller: ImageCaller;
  job: ImageJob;
  ladder: boolean;
  /** What was asked, for the reply fields the upstream may leave out. */
  requested: { size: string; quality: string; background: string; outputFormat: string };
}

/** What a reply says about the run besides the images (spec 2.1's fields after `data`). */
export interface ImageRunMeta {
  created: number;
  background: string;
  model: string;
  outputFormat: string;
  quality: string;
  size: string;
  usage: TokenUsage;
}

/** A successful run. */
export interface ImageRun {
  images: DeliveredImage[];
  usage: TokenUsage;
  meta: ImageRunMeta;
}

/** A request's images, as delivered, and how they were asked for: what the gallery keeps. */
export interface ImageDelivery {
  usage: UsageNotes;
  operation: 'generate' | 'edit';
  options: ImageOptions;
  mask?: InputImage;
  images: DeliveredImage[];
  studioSession: boolean;
  parentImageId: string | null;
  /** false when the caller left before the reply could be written. */
  connected: boolean;
}

/** One finished `image_generation_call` of a Responses call. */
export interface ResponsesImage {
  /** Base64 ASCII bytes: slices of what the upstream sent, never a copy. */
  b64: Base64Pieces;
  revisedPrompt: string | null;
}

/** What a Responses call made, for the gallery: handed over once the relay is over. */
export interface ResponsesImageDelivery {
  usage: UsageNotes;
  /** The studio's own session. */
  studioSession: boolean;
  parentImageId: string | null;
  /** The validated `image_generation` tool; null when the caller sent none. */
  tool: ImageToolOptions | null;
  /** The caller's `input` as text. */
  prompt: string;
  images: ResponsesImage[];
  /** The image tool's usage for the whole response (`tool_usage.image_gen`). */
  imageUsage: TokenUsage | null;
  /** false when the caller left before the reply had been written. */
  connected: boolean;
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
   * A file the gallery's copy is decoded into while the image streams (gallery/spool.ts);
   * `pixels`, the delivered image's, decides whether it is written past the page cache.
   */
  spool(pixels: number): ImageSpool;
  /** Deletes a spooled file the gallery did not take. */
  dropUnclaimed(spooled: SpooledImage): Promise<void>;
  /** The images of a generation or edit. */
  keepImages(delivery: ImageDelivery): void;
  /** The images of a /v1/responses call. */
  keepResponsesImages(delivery: ResponsesImageDelivery): void;
  /** Whether an image id is in the gallery (an edit's parent). */
  exists(imageId: string): Promise<boolean>;
}

/**
 * The reply a run is written into (http/replies/imageReply.ts): told as images arrive, then once
 * with the outcome.
 */
export interface ImageRunReply {
  /** Offered each image once its header passed the delivery check (pass-through). */
  onImageStart?: (imageIndex: number, start: ImageStartInfo) => ImageSink | null;
  onPartial?: (imageIndex: number, partial: PartialImage) => void;
  onImage?: (imageIndex: number, image: DeliveredImage) => void;
  /**
   * True once the reply has committed to a 200 (an event stream, or an image under way): from
   * then on a failure is written into it (or breaks it) instead of being answered as an error.
   */
  readonly committed: boolean;
  /** Writes a successful run; `keep` hands the images, as delivered, to the gallery. */
  succeeded(run: ImageRun, keep: (images: DeliveredImage[]) => void): Promise<void>;
  /** Writes a failure into a committed reply. */
  failed(error: ApiError): Promise<void>;
  /** Something unexpected went wrong: a reply under way can only be broken off. */
  broken(): void;
}

/**
 * The reply a relayed Responses call is written into (http/replies/responsesRelay.ts): the
 * upstream's bytes pass through as they are.
 */
export interface ResponsesRunReply {
  /** True once the reply's headers went out: a failure can then only end it. */
  readonly committed: boolean;
  /** Starts an event stream (a 200). */
  openEvents(): void;
  /** Forwards one whole upstream event, in the pieces it arrived in. */
  event(pieces: readonly Buffer[]): void;
  /** Writes a whole JSON body with the upstream's status. */
  whole(status: number, body: Buffer): void;
  /** Ends the reply: the end of its event stream, or one broken off mid-way. */
  end(): void;
}
