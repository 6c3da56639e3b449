import { ERROR_CODES } from '../../shared/errors';
import { invalidParam } from '../core/errors';
import { checkPrompt, contentPolicyError } from '../contentFilter/checkPrompt';
import type { ImageJob } from '../upstream/types';
import type {
  ImageCaller,
  ImagePlan,
  ImageRequest,
  KeyLimitsPort,
  LiveImageSettings,
} from './types';

export interface ImagePlanDeps {
  settings: LiveImageSettings;
  limits: KeyLimitsPort;
  now: () => number;
}

/**
 * Everything decided before any upstream work: the content pre-filter, the key's limits, what
 * the reply can carry, the upstream job, the first usage note and whether the ladder is on.
 */
export async function planImageRun(
  deps: ImagePlanDeps,
  request: ImageRequest,
  caller: ImageCaller,
  can: { publishUrls: boolean },
): Promise<ImagePlan> {
  const { settings } = deps;
  const { options } = request;
  // Before anything goes upstream: a refused prompt costs no tokens and is recorded with none.
  const verdict = checkPrompt(options.prompt, settings.contentFilter());
  if (!verdict.allowed) throw contentPolicyError(verdict);
  // The key's budget and images per day, against the estimate: still before any upstream work.
  // Priced first: the usage notes keep the estimate and the prices the row is billed at.
  const admission = caller.usage.admit({
    image: {
      model: options.model,
      prompt: options.prompt,
      size: options.size,
      quality: options.quality,
      n: options.n,
      partialImages: options.stream ? options.partialImages : 0,
      inputImages: request.images,
    },
  });
  await deps.limits.reserveEstimate(caller.requestId, caller.key, admission, deps.now());
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
    size: options.size.text,
    quality: options.quality,
    outputFormat: options.outputFormat,
    outputCompression: options.outputCompression,
    background: options.background,
    moderation: options.moderation,
    partialImages: options.stream ? options.partialImages : 0,
    user: options.user,
    images: request.images,
    mask: request.mask,
    seed: caller.seed,
  };
  caller.usage.requested({
    model: options.model,
    size: options.size.text,
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
      size: options.size.text,
      quality: options.quality ?? 'auto',
      background: options.background ?? 'auto',
      outputFormat: options.outputFormat,
    },
  };
}
