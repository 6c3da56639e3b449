import type {
  Background,
  Moderation,
  OutputFormat,
  Quality,
  TokenUsage,
} from '../../shared/imageParams';
import type { ImageInfo } from '../bytes/imageInspect';
import type { Base64Pieces } from '../bytes/base64Pieces';
import type { SseEvent } from '../bytes/sse';
import type { AccountKind } from '../core/domain';

/** An input image of an edit, already sniffed and measured from its bytes. */
export interface InputImage {
  bytes: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
  hasAlpha: boolean;
  filename: string;
}

/** One upstream image call: always a single image (n fan-out belongs to dispatch). */
export interface ImageJob {
  operation: 'generate' | 'edit';
  /** The upstream's model id, after the account's model mapping. */
  model: string;
  prompt: string;
  size: string;
  quality?: Quality;
  outputFormat?: OutputFormat;
  outputCompression?: number;
  background?: Background;
  moderation?: Moderation;
  /** 0 unless the caller streams. */
  partialImages: number;
  user?: string;
  images: InputImage[];
  mask?: InputImage;
  /**
   * Which of the caller's n images this single call makes (0-based). Only the simulator uses it
   * (so n calls of one prompt draw n different pictures); real upstreams never see it.
   */
  variant?: number;
  /**
   * The request's seed for the simulator (`x-atelier-sim-seed`): the caller's own, else the
   * request's id, so every request draws new pictures. Real upstreams never see it.
   */
  seed?: string;
}

/**
 * An image as base64 ASCII bytes, exactly as the upstream sent them. The gateway splices these
 * bytes into its reply: they are never decoded and re-encoded on the response path.
 */
export interface PartialImage {
  b64: Buffer;
  index: number;
}

export interface ImageOutcome {
  /**
   * The image's base64 text in the pieces it arrived in (see base64Pieces.ts); only its first
   * pieces when it streamed to a sink that did not retain it.
   */
  b64: Base64Pieces;
  created: number;
  revisedPrompt: string | null;
  /** What the upstream says it used; null where it did not say. */
  size: string | null;
  quality: string | null;
  background: string | null;
  outputFormat: string | null;
  usage: TokenUsage;
  /** The id the upstream gave this answer (its `x-request-id`), where it gave one. */
  upstreamRequestId?: string | null;
}

export interface CallOptions {
  signal: AbortSignal;
  /** Upstream response-headers timeout: long images are normal (spec 7.1). */
  timeoutMs: number;
  onPartial?: (partial: PartialImage) => void;
  /**
   * Offered the image as soon as its header is known, before the rest has arrived: a sink it
   * returns receives every piece of the base64 text as it comes (the reply streams while the
   * upstream sends). Adapters that cannot stream never call it.
   */
  onImageStart?: ImageStart;
}

/** What is known of an image once its first bytes have arrived. */
export interface ImageHead {
  info: ImageInfo;
  /** The upstream's `created`, when it came before the image. */
  created: number | null;
}

export interface ImageSink {
  /** Takes the next piece of base64 text; a promise is backpressure. */
  write(piece: Buffer): void | Promise<void>;
  /**
   * false: nothing needs the image once it has been written here, so the adapter lets each
   * piece go and the outcome's `b64` holds only the pieces read before the sink took over.
   */
  retain: boolean;
}

/** Returns a sink to stream the image into, or null to have it buffered as usual. */
export type ImageStart = (head: ImageHead) => ImageSink | null;

/** The account as an adapter needs it; secrets are resolved by the caller (keychain). */
export interface UpstreamAccount {
  id: string;
  name: string;
  kind: AccountKind;
  baseUrl: string;
  /** Bearer credential: an API key or an OAuth access token. */
  credential: string;
  /** Maps a public model id to the upstream's id; identity where absent. */
  modelMap: Record<string, string>;
}

/** A raw reply of a Responses call, handed through to the caller. */
export interface ResponsesReply {
  status: number;
  contentType: string;
  /** Non-streaming: the whole body. */
  body?: Buffer;
  /** Streaming: SSE events, each the exact bytes of one event (ending in a blank line). */
  events?: AsyncIterable<SseEvent>;
  /** The id the upstream gave this answer (its `x-request-id`), where it gave one. */
  upstreamRequestId?: string | null;
}

export interface ImageUpstream {
  readonly account: UpstreamAccount;
  /**
   * A cheap authenticated call that makes nothing (the model list): resolves when the upstream
   * answered it, throws an UpstreamError saying why not. Adapters without one are tested by
   * reaching their base URL.
   */
  probe?(opts: { signal: AbortSignal; timeoutMs: number }): Promise<void>;
  generateImage(job: ImageJob, opts: CallOptions): Promise<ImageOutcome>;
  responses(
    body: Record<string, unknown>,
    opts: Omit<CallOptions, 'onPartial'> & { stream: boolean },
  ): Promise<ResponsesReply>;
}
