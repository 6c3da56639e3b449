import { BACKGROUNDS, LIMITS, MODERATIONS, OUTPUT_FORMATS, QUALITIES } from '../shared/imageParams';
import type { Background, Moderation, OutputFormat, Quality } from '../shared/imageParams';
import { IMAGE_MODELS, isImageModel } from '../shared/models';
import { SIZE_LIMITS, checkSize } from '../shared/sizeRules';
import type { Dimensions } from '../shared/sizeRules';
import { invalidRequest } from './errors';
import { FieldReader } from './fields';

/** Image settings as sent, shared by the Images API bodies and the Responses image tool. */
export interface ImageSettings {
  model: string;
  size?: string;
  /** Requested dimensions; null for 'auto' or absent. */
  dims: Dimensions | null;
  quality?: Quality;
  outputFormat?: OutputFormat;
  outputCompression?: number;
  background?: Background;
  moderation?: Moderation;
  partialImages: number;
}

export interface ImageRequest extends ImageSettings {
  prompt: string;
  n: number;
  stream: boolean;
}

/** What will actually be produced, after defaults and 'auto' are resolved. */
export interface OutputSpec {
  width: number;
  height: number;
  quality: Exclude<Quality, 'auto'>;
  format: OutputFormat;
  compression?: number;
  background: Exclude<Background, 'auto'>;
}

export function readImageSettings(f: FieldReader, defaultModel?: string): ImageSettings {
  const model = f.has('model') || !defaultModel ? f.requiredString('model') : defaultModel;
  if (!isImageModel(model)) {
    const list = IMAGE_MODELS.map((m) => `'${m}'`).join(', ');
    throw invalidRequest(
      f.param('model'),
      `Invalid value: '${model}'. Supported values are: ${list}.`,
    );
  }
  const size = f.string('size');
  let dims: Dimensions | null = null;
  if (size !== undefined) {
    const check = checkSize(size);
    if (!check.ok) throw invalidRequest(f.param('size'), check.message);
    if (!check.auto) dims = { width: check.width, height: check.height };
  }
  if (f.string('background') === 'transparent') {
    throw invalidRequest(
      f.param('background'),
      'Transparent background is not supported for this model.',
    );
  }
  if (f.has('response_format')) {
    throw invalidRequest(
      f.param('response_format'),
      "Unknown parameter: 'response_format'.",
      'unknown_parameter',
    );
  }
  return {
    model,
    size,
    dims,
    quality: f.oneOf('quality', QUALITIES),
    outputFormat: f.oneOf('output_format', OUTPUT_FORMATS),
    outputCompression: f.integer(
      'output_compression',
      LIMITS.compressionMin,
      LIMITS.compressionMax,
    ),
    background: f.oneOf('background', BACKGROUNDS),
    moderation: f.oneOf('moderation', MODERATIONS),
    partialImages:
      f.integer('partial_images', LIMITS.partialImagesMin, LIMITS.partialImagesMax) ?? 0,
  };
}

/** An Images API (or native channel) body: JSON, or multipart fields where all values are strings. */
export function readImageRequest(raw: Record<string, unknown>, fromForm: boolean): ImageRequest {
  const f = new FieldReader(raw, fromForm);
  const prompt = f.requiredString('prompt');
  const settings = readImageSettings(f);
  return {
    ...settings,
    prompt,
    n: f.integer('n', LIMITS.nMin, LIMITS.nMax) ?? 1,
    stream: f.boolean('stream') ?? false,
  };
}

/** Generations default to 1024x1024; edits to the first input image's size (scaled into limits). */
export function resolveOutput(settings: ImageSettings, firstInput?: Dimensions): OutputSpec {
  const dims =
    settings.dims ?? (firstInput ? fitWithinLimits(firstInput) : { width: 1024, height: 1024 });
  return {
    ...dims,
    quality: !settings.quality || settings.quality === 'auto' ? 'medium' : settings.quality,
    format: settings.outputFormat ?? 'png',
    compression: settings.outputCompression,
    background: 'opaque',
  };
}

function fitWithinLimits({ width, height }: Dimensions): Dimensions {
  const { maxEdge, maxPixels } = SIZE_LIMITS;
  const scale = Math.min(
    1,
    maxEdge / Math.max(width, height),
    Math.sqrt(maxPixels / (width * height)),
  );
  if (scale === 1) return { width, height };
  return {
    width: Math.max(1, Math.floor(width * scale)),
    height: Math.max(1, Math.floor(height * scale)),
  };
}
