import type { RequestedSize } from '../core/requestedSize';

/**
 * What a request's output size makes of it: how much of an account's concurrency it uses (its
 * weight) and how long its upstream call may take. By output pixels. A 4K image keeps an
 * upstream busy far longer and fails more often under load than a 1024 one (spec 8.3.2):
 *
 * | class        | pixels            | weight | examples                      |
 * | ------------ | ----------------- | ------ | ----------------------------- |
 * | 1024 class   | up to 1,638,400   | 1      | 1024x1024, 1536x1024, auto    |
 * | 2K class     | up to 4,194,304   | 2      | 2048x2048, 2048x1152          |
 * | 4K class     | above             | 4      | 3840x2160, 2160x3840          |
 */
export const WEIGHT_CLASSES = [
  { maxPixels: 1_638_400, weight: 1 },
  { maxPixels: 4_194_304, weight: 2 },
  { maxPixels: Number.POSITIVE_INFINITY, weight: 4 },
] as const;

/** Pixels of the requested output; `auto` counts as the 1024 class. */
export function requestedPixels(size: RequestedSize | undefined): number {
  return size?.pixels ?? 1024 * 1024;
}

export function weightOf(size: RequestedSize | undefined): number {
  const pixels = requestedPixels(size);
  return WEIGHT_CLASSES.find((c) => pixels <= c.maxPixels)!.weight;
}

/** Pixels of 2560x1440: above this, outputs are experimental high-pixel work (spec 8.1). */
const LARGE_OUTPUT_PIXELS = 2560 * 1440;

export interface TimeoutSettings {
  normalMs: number;
  largeMs: number;
}

/** Spec 8.2's guidance: 120 s for normal images, 300 s for 4K-class ones. */
export const DEFAULT_TIMEOUTS: TimeoutSettings = { normalMs: 120_000, largeMs: 300_000 };

export function upstreamTimeoutFor(
  size: RequestedSize | undefined,
  settings: TimeoutSettings = DEFAULT_TIMEOUTS,
): number {
  if (size?.pixels != null && size.pixels > LARGE_OUTPUT_PIXELS) return settings.largeMs;
  return settings.normalMs;
}
