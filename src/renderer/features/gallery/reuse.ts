import type { ImageRecord } from '../../../shared/admin';
import { BACKGROUNDS, MODERATIONS, OUTPUT_FORMATS, QUALITIES } from '../../../shared/imageParams';
import { isImageModel } from '../../../shared/models';
import { COMMON_SIZES } from '../../../shared/sizeRules';
import { EMPTY_DRAFT, type PromptDraft } from '../generate/composePrompt';
import type { ImageParams } from '../generate/params';

const pick = <T extends string>(values: readonly T[], value: string | null, fallback: T): T =>
  value !== null && (values as readonly string[]).includes(value) ? (value as T) : fallback;

/**
 * The Generate form that makes this image again: its prompt and parameters as it asked for them
 * (the requested size, not the delivered one). Streaming choices stay as the person has them, and
 * n is one: re-use is about this image.
 */
export function reuseOf(
  image: ImageRecord,
  current: ImageParams,
): { draft: PromptDraft; params: ImageParams } {
  const params: ImageParams = {
    ...current,
    model: isImageModel(image.model) ? image.model : current.model,
    quality: pick(QUALITIES, image.quality, current.quality),
    outputFormat: pick(OUTPUT_FORMATS, image.outputFormat, current.outputFormat),
    compression: image.outputCompression ?? current.compression,
    background: pick(BACKGROUNDS, image.background, current.background),
    moderation: pick(MODERATIONS, image.moderation, current.moderation),
    n: 1,
  };
  const size = image.requestedSize;
  if (size === 'auto' || (COMMON_SIZES as readonly string[]).includes(size)) {
    params.size = size as ImageParams['size'];
  } else {
    const match = /^(\d+)x(\d+)$/.exec(size);
    if (match) {
      params.size = 'custom';
      params.customWidth = match[1]!;
      params.customHeight = match[2]!;
    }
  }
  return { draft: { ...EMPTY_DRAFT, text: image.prompt }, params };
}
