import type { ImageJob } from '../types';
import { dataUrl, serialiseJson, type JsonChunks } from './jsonChunks';

/** The bridge insists on non-empty instructions; these keep the text model out of the way. */
export const IMAGE_INSTRUCTIONS =
  "Call the image_generation tool exactly once to make the image the user asks for. Use the user's text as the image prompt; do not answer in text.";

/** Every image setting the caller gave, under its wire name. Absent settings stay absent. */
function imageSettings(job: ImageJob): Record<string, unknown> {
  const settings: Record<string, unknown> = { model: job.model, size: job.size };
  if (job.quality !== undefined) settings.quality = job.quality;
  if (job.background !== undefined) settings.background = job.background;
  if (job.outputFormat !== undefined) settings.output_format = job.outputFormat;
  if (job.outputCompression !== undefined) settings.output_compression = job.outputCompression;
  if (job.moderation !== undefined) settings.moderation = job.moderation;
  return settings;
}

/** Native channel (protocol page 2.2a): Images-API JSON; edits carry data URLs. One image. */
export function nativeBody(job: ImageJob): JsonChunks {
  const body: Record<string, unknown> = { prompt: job.prompt, ...imageSettings(job) };
  if (job.operation === 'edit') {
    body.images = job.images.map((image) => ({ image_url: dataUrl(image) }));
    if (job.mask) body.mask = { image_url: dataUrl(job.mask) };
  }
  return serialiseJson(body);
}

/**
 * Responses bridge (protocol page 2.2b): the text model is the account's setting, the image
 * tool carries every setting (peers that pass only `size` lose quality, format and background),
 * and never `n`: the upstream rejects `tools[0].n`, and n images are n calls.
 */
export function bridgeBody(
  job: ImageJob,
  bridgeModel: string,
  streamPartials: boolean,
): JsonChunks {
  const tool: Record<string, unknown> = {
    type: 'image_generation',
    ...imageSettings(job),
    action: job.operation,
  };
  // Partial images only travel when asked for; the tool needs partial_images >= 1 to stream them.
  if (streamPartials) tool.partial_images = job.partialImages;
  if (job.operation === 'edit' && job.mask)
    tool.input_image_mask = { image_url: dataUrl(job.mask) };
  const content: unknown[] = [{ type: 'input_text', text: job.prompt }];
  if (job.operation === 'edit') {
    for (const image of job.images)
      content.push({ type: 'input_image', image_url: dataUrl(image) });
  }
  return serialiseJson({
    model: bridgeModel,
    instructions: IMAGE_INSTRUCTIONS,
    input: [{ role: 'user', content }],
    tools: [tool],
    tool_choice: { type: 'image_generation' },
    stream: true,
    store: false,
  });
}
