import { ERROR_CODES } from '../../shared/errors';
import { invalidParam } from '../core/errors';
import { checkPrompt, contentPolicyError } from '../contentFilter/checkPrompt';
import type { ImageJob } from '../upstream/types';
import type { ImageCaller, ImagePlan, LiveImageSettings, ImageRequest } from './types';

/**
 * Everything decided before any upstream work: the content pre-filter, the key's limits, what
 * the reply can carry, the upstream job, the first usage note and whether the ladder is on.
 */
export function planImageRun(
  settings: LiveImageSettings,
  request: ImageRequest,
  caller: ImageCaller,
  can: { publishUrls: boolean },
): ImagePlan {
  const { options } = request;
  // Before anything goes upstream: a refused prompt costs no tokens and is recorded with none.
  const verdict = checkPrompt(options.prompt, settings.contentFilter());
  if (!verdict.allowed) throw contentPolicyError(verdict);
  // The key's budget and images per day, against the estimate: still before any upstream work.
  caller.reserve({
    model: options.model,
    prompt: options.prompt,
    size: options.size,
    quality: options.quality,
    n: options.n,
    partialImages: options.stream ? options.partialImages : 0,
    inputImages: request.images,
  });
  if (options.responseFormat === 'url' && !can.publishUrls) {
    throw invalidParam(
      'response_format',
      "response_format 'url' is not available on this gateway: use b64_json",
      ERROR_CODES.unsupportedParameter,
    );
  }
  const job: ImageJob = {
    operation: request.operation,
    model: options.model,
    prompt: options.prompt,
    size: options.size,
    quality: options.quality,
    outputFormat: options.outputFormat,
    outputCompression: options.outputCompression,
    background: options.background,
    moderation: options.moderation,
    partialImages: options.stream ? options.partialImages : 0,
    user: options.user,
    images: request.images,
    mask: request.mask,
  };
  caller.usage.requested({
    model: options.model,
    size: options.size,
    quality: options.quality ?? 'auto',
    outputFormat: options.outputFormat,
    n: options.n,
    stream: options.stream,
    user: options.user ?? null,
  });
  return {
    request,
    caller,
    job,
    ladder: caller.key.fallbackLadder || settings.ladderForAll() || caller.ladderAsked,
    requested: {
      size: options.size,
      quality: options.quality ?? 'auto',
      background: options.background ?? 'auto',
      outputFormat: options.outputFormat,
    },
  };
}
