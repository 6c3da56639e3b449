/** The image model's alias and dated snapshot (spec 1, 9.2). Both are valid everywhere. */
export const IMAGE_MODELS = ['image-model-2', 'image-model-2-2026-04-21'] as const;
export type ImageModel = (typeof IMAGE_MODELS)[number];

/**
 * Text/agent models a `/v1/responses` call may name as its main `model`. The list is the default
 * for a fresh install; the upstream names they map to are account settings, never hard-coded in
 * adapters (a retired hard-coded model broke a peer for every account).
 */
export const DEFAULT_TEXT_MODELS = ['agent-model-1', 'agent-model-1-mini'] as const;

export function isImageModel(model: string): model is ImageModel {
  return (IMAGE_MODELS as readonly string[]).includes(model);
}
