import { estimateImageRequest, type EstimateInput } from '../../shared/costEstimate';
import type { Quality } from '../../shared/imageParams';
import type { RequestedSize } from '../core/requestedSize';
import type { Prices } from '../billing/prices';

/** What a request will use of a key's limits, known before any upstream call. */
export interface Demand {
  /** The cost estimate in micro-dollars (reserved against a budget until the usage row is written). */
  costMicros: number;
  /** Images the request asks for. */
  images: number;
}

export const NO_DEMAND: Demand = { costMicros: 0, images: 0 };

/** An image request as the estimate needs it: the same inputs the studio prices before sending. */
export interface ImageDemandInput {
  model: string;
  prompt: string;
  size: RequestedSize;
  quality: Quality | undefined;
  n: number;
  partialImages: number;
  inputImages?: ReadonlyArray<{ width: number; height: number }>;
}

/**
 * The estimate of shared/costEstimate.ts at the gateway's own price for the model (the price the
 * usage row will be billed at); a model without a price costs nothing, as its usage row will.
 */
export function imageDemand(
  input: ImageDemandInput,
  priceFor: (model: string) => Prices | null,
): Demand {
  const price = priceFor(input.model);
  const size = input.size;
  const estimate: EstimateInput = {
    prompt: input.prompt,
    size: size.auto ? null : { width: size.width, height: size.height },
    quality: input.quality ?? 'auto',
    n: input.n,
    partialImages: input.partialImages,
    inputImages: input.inputImages,
  };
  return {
    costMicros: price ? estimateImageRequest(estimate, price).costMicros : 0,
    images: input.n,
  };
}
