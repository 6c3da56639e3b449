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

/**
 * One sentence per model id, for wherever the studio shows or offers one (the model picker, the
 * request tables, the price list). Only the studio shows these: GET /v1/models stays as OpenAI
 * shapes it, since apps parse it.
 */
const MODEL_DESCRIPTIONS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    'image-model-2':
      'The image model at its newest version: makes and edits pictures from a prompt, up to 4K.',
    'image-model-2-2026-04-21':
      'The same image model held at its 21 April 2026 version, so results do not change when a newer one ships.',
    'agent-model-1':
      'A text model for /v1/responses conversations; it hands a request for a picture to the image tool.',
    'agent-model-1-mini':
      'The smaller text model for /v1/responses; like agent-model-1, it hands pictures to the image tool.',
  }),
);

/** The model's one-sentence description, or null for a model the studio does not know. */
export function describeModel(model: string | null | undefined): string | null {
  return (model && MODEL_DESCRIPTIONS.get(model)) || null;
}
