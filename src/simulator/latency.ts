import { setTimeout as sleep } from 'node:timers/promises';
import type { Quality } from '../shared/imageParams';

/** Milliseconds per megapixel by quality: big, high-quality images are slow upstream too. */
const MS_PER_MEGAPIXEL: Record<Exclude<Quality, 'auto'>, number> = {
  low: 150,
  medium: 500,
  high: 1500,
};
const BASE_MS = 150;

/** Simulated render time of one image; `speed` 0 means none at all. */
export function imageLatencyMs(
  width: number,
  height: number,
  quality: Quality,
  speed: number,
): number {
  if (speed <= 0) return 0;
  const megapixels = (width * height) / 1_000_000;
  const perMegapixel = MS_PER_MEGAPIXEL[quality === 'auto' ? 'medium' : quality];
  return speed * (BASE_MS + megapixels * perMegapixel);
}

/** Simulated time of a text-only model turn. */
export function textLatencyMs(speed: number): number {
  return speed > 0 ? speed * BASE_MS : 0;
}

/**
 * Waits on a timer, never by blocking, so one slow image does not stall other requests. Rejects
 * with the signal's reason when the client leaves or the simulator closes.
 */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (ms <= 0) return;
  await sleep(ms, undefined, { signal });
}
