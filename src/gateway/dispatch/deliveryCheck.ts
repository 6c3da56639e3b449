import { checkSize } from '../../shared/sizeRules';
import { upstreamFailed, type ApiError } from '../core/errors';
import type { ImageOutcome } from '../upstream/types';
import { inspectBase64Pieces, type ImageInfo } from '../bytes/imageInspect';

export interface Delivered {
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'webp';
}

/**
 * Reads what the upstream really delivered from the image's header bytes (never the whole image)
 * and holds it against the request: a silent downgrade billed as asked is the peers' top complaint.
 */
export function checkDelivery(
  outcome: ImageOutcome,
  requested: { size: string; outputFormat: string },
): DeliveryVerdict {
  return checkDeliveredInfo(inspectBase64Pieces(outcome.b64), requested);
}

export type DeliveryVerdict =
  { delivered: Delivered } | { error: ApiError; delivered: Delivered | null };

/** The same check on a header already read (an image still arriving). */
export function checkDeliveredInfo(
  info: ImageInfo | null,
  requested: { size: string; outputFormat: string },
): DeliveryVerdict {
  if (!info) {
    return {
      error: upstreamFailed(
        'upstream_bad_response',
        'the upstream returned data that is not a PNG, JPEG or WebP image',
      ),
      delivered: null,
    };
  }
  const delivered: Delivered = { width: info.width, height: info.height, format: info.format };
  const size = checkSize(requested.size);
  if (size.ok && !size.auto && (size.width !== info.width || size.height !== info.height)) {
    return {
      error: upstreamFailed(
        'upstream_size_mismatch',
        `asked for ${requested.size} but the upstream delivered ${info.width}x${info.height}; the image was not returned so it is not billed as asked`,
        { 'x-should-retry': 'false' },
      ),
      delivered,
    };
  }
  if (info.format !== requested.outputFormat) {
    return {
      error: upstreamFailed(
        'upstream_size_mismatch',
        `asked for ${requested.outputFormat} but the upstream delivered ${info.format}`,
        { 'x-should-retry': 'false' },
      ),
      delivered,
    };
  }
  return { delivered };
}
