import type { TokenUsage } from '../../../shared/imageParams';

/*
 * The words of one image call (what the studio sends, what comes back), apart from the client
 * that makes it (images.ts) and the stream reader that fills it (imageStream.ts), so neither
 * imports the other for them.
 */

/** One image request to /v1/images/generations or /v1/images/edits. */
export interface ImageCall {
  endpoint: 'generations' | 'edits';
  /** JSON fields for generations, multipart form for edits. */
  body: Record<string, unknown> | FormData;
  /** Sent as `x-atelier-parent-image` to record the edit chain. */
  parentImageId?: string | null;
  /** Sent as `x-atelier-run`: the id that `admin.cancelRun` stops the upstream work by. */
  runId?: string;
  signal?: AbortSignal;
}

export interface PartialImage {
  imageIndex: number;
  partialIndex: number;
  blob: Blob;
}

export interface DeliveredImage {
  imageIndex: number;
  blob: Blob;
  /** The size as delivered (the gateway reports what it really got). */
  size: string | null;
  quality: string | null;
  background: string | null;
  outputFormat: string | null;
  /** This image's usage; null in a non-streamed reply, whose usage covers the whole request. */
  usage: TokenUsage | null;
  revisedPrompt: string | null;
}

export interface ImageCallHandlers {
  onPartial?: (partial: PartialImage) => void;
  onImage: (image: DeliveredImage) => void;
  /**
   * A studio run's events carry their `sequence_number` (the gateway keeps the run as a job):
   * told after each such event is handled, so a dropped stream resumes after the last one.
   */
  onSequence?: (sequenceNumber: number) => void;
}

export interface ImageCallResult {
  requestId: string | null;
  /** The whole request's usage: the reply's, or the sum of the streamed images'. */
  usage: TokenUsage | null;
  images: number;
}
