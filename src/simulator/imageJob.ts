import type { Dimensions } from '../shared/sizeRules';
import type { OutputSpec } from './imageRequest';
import { imageLatencyMs, pause } from './latency';
import { encodeFrame, renderFrame } from './render';
import type { Payload, RawImage } from './render';
import { composeEdit } from './renderEdit';
import { pixelate } from './renderPartial';

/** One image to produce, with everything resolved. */
export interface ImageJob {
  prompt: string;
  /** Index within an n > 1 call: image 0 of a prompt is always the same picture, others differ. */
  variant: number;
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
  const seedText = job.variant === 0 ? job.prompt : `${job.prompt}#${job.variant}`;
  let frame: RawImage = renderFrame(seedText, out.width, out.height, job.payload);
  if (job.edit) frame = await composeEdit(frame, job.edit.image, job.edit.mask);
  const partials = onPartial ? job.partialImages : 0;
  const slice = imageLatencyMs(out.width, out.height, out.quality, job.speed) / (partials + 1);
  for (let index = 0; index < partials; index += 1) {
    await pause(slice, signal);
    const bytes = await encodeFrame(
      pixelate(frame, index),
      out.format,
      out.compression,
      job.payload,
    );
    await onPartial!(bytes.toString('base64'), index);
  }
  await pause(slice, signal);
  const bytes = await encodeFrame(frame, out.format, out.compression, job.payload);
  signal.throwIfAborted();
  return bytes.toString('base64');
}

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
