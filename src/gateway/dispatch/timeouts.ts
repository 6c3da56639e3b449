import { checkSize } from '../../shared/sizeRules';

/** Pixels of 2560x1440: above this, outputs are experimental high-pixel work (spec 8.1). */
const LARGE_OUTPUT_PIXELS = 2560 * 1440;

export interface TimeoutSettings {
  normalMs: number;
  largeMs: number;
}

/** Spec 8.2's guidance: 120 s for normal images, 300 s for 4K-class ones. */
export const DEFAULT_TIMEOUTS: TimeoutSettings = { normalMs: 120_000, largeMs: 300_000 };

export function upstreamTimeoutFor(
  size: string,
  settings: TimeoutSettings = DEFAULT_TIMEOUTS,
): number {
  const check = checkSize(size);
  if (check.ok && !check.auto && check.width * check.height > LARGE_OUTPUT_PIXELS)
    return settings.largeMs;
  return settings.normalMs;
}
