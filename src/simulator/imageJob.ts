import type { Dimensions } from '../shared/sizeRules';
import type { OutputSpec } from './imageRequest';
import { imageLatencyMs, pause } from './latency';
import { encodeFrame, renderFrame } from './render';
import type { Payload, RawImage } from './render';
import { composeEdit } from './renderEdit';
import { createNoiseCache } from './noiseCache';
import { pixelate } from './renderPartial';

/** One image to produce, with everything resolved. */
export interface ImageJob {
  prompt: string;
  /** Index within an n > 1 call: image 0 of a prompt is always the same picture, others differ. */
  variant: number;
  /** The request's seed (`x-atelier-sim-seed`), null for none: the same picture every time. */
  seed: string | null;
  out: OutputSpec;
  partialImages: number;
  edit?: { image: Buffer; mask?: Buffer };
  payload: Payload;
  speed: number;
  signal: AbortSignal;
}

export type PartialSink = (b64: string, index: number) => Promise<void>;

/**
 * Renders the final frame first (it is cheap), then spends the simulated latency in equal slices
 * before each partial and before the final image, so streams arrive at a realistic pace.
 */
export async function runImageJob(job: ImageJob, onPartial?: PartialSink): Promise<string> {
  const { out, signal } = job;
  // Noise exists for benchmarks, which want the cache to hit: it ignores the request's seed.
  const seed = job.payload === 'noise' ? null : job.seed;
  const drawn = job.variant === 0 ? job.prompt : `${job.prompt}#${job.variant}`;
  const seedText = seed === null ? drawn : `${drawn}\u0000${seed}`;
  const cacheKey =
    job.payload === 'noise' && !job.edit
      ? `${seedText}\u0000${out.width}x${out.height}\u0000${out.format}\u0000${out.compression ?? ''}`
      : null;
  // The frame is rendered only when some encoding below misses the cache.
  let frame: RawImage | undefined;
  const source = async (): Promise<RawImage> => {
    if (!frame) {
      frame = renderFrame(seedText, out.width, out.height, job.payload);
      if (job.edit) frame = await composeEdit(frame, job.edit.image, job.edit.mask);
    }
    return frame;
  };
  const encoded = async (variant: string, make: (raw: RawImage) => RawImage): Promise<string> => {
    const key = cacheKey === null ? null : `${cacheKey}\u0000${variant}`;
    const encode = async () =>
      (await encodeFrame(make(await source()), out.format, out.compression, job.payload)).toString(
        'base64',
      );
    return key === null ? encode() : noiseCache.get(key, encode);
  };
  const partials = onPartial ? job.partialImages : 0;
  const slice = imageLatencyMs(out.width, out.height, out.quality, job.speed) / (partials + 1);
  for (let index = 0; index < partials; index += 1) {
    await pause(slice, signal);
    await onPartial!(await encoded(`partial${index}`, (raw) => pixelate(raw, index)), index);
  }
  await pause(slice, signal);
  const b64 = await encoded('final', (raw) => raw);
  signal.throwIfAborted();
  return b64;
}

/** One per process: simulators in one process ask for the same noise and may share it. */
const noiseCache = createNoiseCache();

/**
 * The observed subscription downgrade (protocol page 2.2): output near 1.57 megapixels whatever
 * was asked, in the requested orientation.
 */
export function downgradedSize({ width, height }: Dimensions): Dimensions {
  if (width === height) return { width: 1254, height: 1254 };
  return width > height ? { width: 1672, height: 941 } : { width: 941, height: 1672 };
}

/** The model's rewrite of the prompt, deterministic so tests can expect it. */
export function revisePrompt(prompt: string): string {
  return `${prompt.trim()}, rendered as a layered illustration`;
}
