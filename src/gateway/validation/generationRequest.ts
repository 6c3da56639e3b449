import { bodyKind, invalidRequest, isPlainObject } from './fields';
import { parseImageOptions, type ImageOptions } from './imageOptions';

/** POST /v1/images/generations: a JSON object of the scalar parameters of spec 4.1. */
export function parseGenerationRequest(body: unknown): ImageOptions {
  if (!isPlainObject(body)) {
    throw invalidRequest(
      'The request body must be a JSON object such as {"model": "image-model-2", "prompt": "..."}' +
        ` (sent with Content-Type: application/json); got ${bodyKind(body)}`,
    );
  }
  return parseImageOptions(body, { endpoint: 'generations' });
}
