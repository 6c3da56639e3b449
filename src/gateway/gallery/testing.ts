import { emptyUsage } from '../../shared/imageParams';
import type { ImageBatch, KeptImage } from './batch';

/**
 * A request's batch as the gallery receives it, for tests: one PNG per entry of `images`
 * (`width` x `height`, its base64 pieces or its spool), the rest of the request as an API
 * generation asked for it.
 */
export function testBatch(
  requestId: string,
  images: ReadonlyArray<Pick<KeptImage, 'b64'> & Partial<Pick<KeptImage, 'spooled'>>>,
  opts: { width: number; height: number; source?: ImageBatch['source']; prompt?: string },
): ImageBatch {
  return {
    requestId,
    source: opts.source ?? 'api',
    endpoint: '/v1/images/generations',
    prompt: opts.prompt ?? 'a test',
    model: 'image-model-2',
    requestedSize: `${opts.width}x${opts.height}`,
    quality: 'low',
    outputCompression: null,
    background: 'auto',
    moderation: null,
    apiKeyId: null,
    parentId: null,
    mask: null,
    images: images.map((image) => ({
      ...image,
      width: opts.width,
      height: opts.height,
      format: 'png',
      revisedPrompt: null,
      fallbackStep: null,
      usage: emptyUsage(),
    })),
  };
}
