import type { TokenUsage } from '../../shared/imageParams';
import type { DeliveredImage, ImageStartInfo } from '../dispatch/runImages';
import type { ApiError } from '../core/errors';
import type { KeyLimiter, LimitedKey } from '../limits/limiter';
import type { FilterMode } from '../contentFilter/checkPrompt';
import type { ImageJob, ImageSink, InputImage, PartialImage } from '../upstream/types';
import type { UsageNotes } from '../usage/notes';
import type { ImageOptions } from '../validation/imageOptions';

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
  /**
   * Writes a successful run; `keep` hands the images, as delivered, to the gallery, and resolves
   * once the gallery's journal of them is on disk (the reply ends after that where it can).
   */
  succeeded(run: ImageRun, keep: (images: DeliveredImage[]) => Promise<void>): Promise<void>;
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
