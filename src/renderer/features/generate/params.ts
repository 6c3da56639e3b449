/**
 * The image parameters of Generate and Edit as the form holds them, their live validation, and
 * their translation into request fields. Pure; the rules themselves come from src/shared.
 */
import type { EstimateInput } from '../../../shared/costEstimate';
import {
  BACKGROUNDS,
  LIMITS,
  MODERATIONS,
  OUTPUT_FORMATS,
  QUALITIES,
  type Background,
  type Moderation,
  type OutputFormat,
  type Quality,
} from '../../../shared/imageParams';
import { IMAGE_MODELS, isImageModel, type ImageModel } from '../../../shared/models';
import { COMMON_SIZES, type SizeRule } from '../../../shared/sizeRules';
import { sizeFailures } from './sizeChecklist';

export const SIZE_CHOICES = ['auto', ...COMMON_SIZES, 'custom'] as const;
export type SizeChoice = (typeof SIZE_CHOICES)[number];

export interface ImageParams {
  model: ImageModel;
  size: SizeChoice;
  /** As typed, so a half-typed value can be shown and explained. */
  customWidth: string;
  customHeight: string;
  quality: Quality;
  outputFormat: OutputFormat;
  /** 0-100; only sent for JPEG and WebP. */
  compression: number;
  background: Background;
  moderation: Moderation;
  n: number;
  stream: boolean;
  /** 0-3; only sent when streaming. */
  partialImages: number;
}

export const DEFAULT_PARAMS: ImageParams = {
  model: IMAGE_MODELS[0],
  size: '1024x1024',
  customWidth: '1536',
  customHeight: '864',
  quality: 'medium',
  outputFormat: 'png',
  compression: 90,
  background: 'auto',
  moderation: 'auto',
  n: 1,
  stream: true,
  partialImages: 2,
};

/** Fields named as the API names them, so a 400's `param` points at the right control. */
export type ParamField =
  | 'model'
  | 'size'
  | 'quality'
  | 'output_format'
  | 'output_compression'
  | 'background'
  | 'moderation'
  | 'n'
  | 'partial_images';

/** Above this many pixels (2560x1440) outputs are experimental (spec 8.1). */
export const EXPERIMENTAL_PIXELS = 2560 * 1440;

export interface ParamCheck {
  /** One message per field that blocks sending. */
  issues: Partial<Record<ParamField, string>>;
  /** The first size rule of spec 8.1 that fails (the one the gateway would name). */
  sizeRule: SizeRule | 'incomplete' | null;
  /** Every size rule that fails, in the order a person fixes them. */
  sizeRules: SizeRule[];
  /** The `size` value to send, when valid. */
  size: string | null;
  dimensions: { width: number; height: number } | null;
  /** Worth knowing, but sending is allowed. */
  warnings: string[];
  ok: boolean;
}

const WHOLE = /^\d{1,5}$/;

const oneOf = <T extends string>(values: readonly T[], value: string): value is T =>
  (values as readonly string[]).includes(value);

export function checkParams(params: ImageParams): ParamCheck {
  const issues: ParamCheck['issues'] = {};
  const warnings: string[] = [];
  let sizeRule: ParamCheck['sizeRule'] = null;
  let sizeRules: SizeRule[] = [];
  let size: string | null = null;
  let dimensions: ParamCheck['dimensions'] = null;

  if (!isImageModel(params.model)) issues.model = `Choose one of ${IMAGE_MODELS.join(', ')}`;

  if (params.size === 'custom') {
    const w = params.customWidth.trim();
    const h = params.customHeight.trim();
    if (!WHOLE.test(w) || !WHOLE.test(h)) {
      sizeRule = 'incomplete';
      issues.size = 'Enter the width and the height as whole numbers of pixels';
    } else {
      const failure = sizeFailures(Number(w), Number(h));
      if (failure) {
        sizeRules = failure.rules;
        sizeRule = failure.rules[0]!;
        issues.size = failure.message;
      } else {
        dimensions = { width: Number(w), height: Number(h) };
        // Canonical digits (the gateway refuses "01024"): what was typed, without leading zeros.
        size = `${Number(w)}x${Number(h)}`;
      }
    }
  } else if (params.size === 'auto') {
    size = 'auto';
  } else {
    const [w, h] = params.size.split('x').map(Number) as [number, number];
    dimensions = { width: w, height: h };
    size = params.size;
  }
  if (dimensions && dimensions.width * dimensions.height > EXPERIMENTAL_PIXELS) {
    warnings.push(
      'Above 2560x1440 is an experimental high-pixel size: slower, costlier and more likely to fail.',
    );
  }

  if (!oneOf(QUALITIES, params.quality)) issues.quality = `Choose one of ${QUALITIES.join(', ')}`;
  if (!oneOf(OUTPUT_FORMATS, params.outputFormat)) {
    issues.output_format = `Choose one of ${OUTPUT_FORMATS.join(', ')}`;
  }
  if (
    params.outputFormat !== 'png' &&
    !inRange(params.compression, LIMITS.compressionMin, LIMITS.compressionMax)
  ) {
    issues.output_compression = `Compression must be a whole number from ${LIMITS.compressionMin} to ${LIMITS.compressionMax}`;
  }
  if (!oneOf(BACKGROUNDS, params.background)) {
    issues.background = 'Transparent backgrounds are not supported: choose auto or opaque';
  }
  if (!oneOf(MODERATIONS, params.moderation)) {
    issues.moderation = `Choose one of ${MODERATIONS.join(', ')}`;
  }
  if (!inRange(params.n, LIMITS.nMin, LIMITS.nMax)) {
    issues.n = `The number of images must be a whole number from ${LIMITS.nMin} to ${LIMITS.nMax}`;
  }
  if (
    params.stream &&
    !inRange(params.partialImages, LIMITS.partialImagesMin, LIMITS.partialImagesMax)
  ) {
    issues.partial_images = `Partial images must be from ${LIMITS.partialImagesMin} to ${LIMITS.partialImagesMax}`;
  }
  if (params.size === '3840x2160' || params.size === '2160x3840') {
    if (params.quality === 'high') warnings.push('4K at high quality can take several minutes.');
  }
  return {
    issues,
    sizeRule,
    sizeRules,
    size,
    dimensions,
    warnings,
    ok: Object.keys(issues).length === 0,
  };
}

function inRange(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

/** The request fields of spec 4.1 for these parameters (without prompt); call checkParams first. */
export function requestFields(
  params: ImageParams,
  size: string,
): Record<string, string | number | boolean> {
  const fields: Record<string, string | number | boolean> = {
    model: params.model,
    size,
    quality: params.quality,
    output_format: params.outputFormat,
    background: params.background,
    moderation: params.moderation,
    n: params.n,
    stream: params.stream,
  };
  if (params.outputFormat !== 'png') fields.output_compression = params.compression;
  if (params.stream) fields.partial_images = params.partialImages;
  return fields;
}

/** Adds the parameters to a multipart edit form, where every value travels as a string. */
export function appendFields(
  form: FormData,
  fields: Record<string, string | number | boolean>,
): void {
  for (const [name, value] of Object.entries(fields)) form.append(name, String(value));
}

/** The inputs of the shared cost estimator for these parameters. */
export function estimateInput(
  params: ImageParams,
  check: ParamCheck,
  prompt: string,
  inputImages?: ReadonlyArray<{ width: number; height: number }>,
): EstimateInput {
  const first = inputImages?.[0];
  return {
    prompt,
    size: check.dimensions,
    // An edit with size auto keeps the first reference's size.
    autoSize: first ? { width: first.width, height: first.height } : undefined,
    quality: params.quality,
    n: params.n,
    partialImages: params.stream ? params.partialImages : 0,
    inputImages,
  };
}

/** Loose input (a preset from storage) made into valid parameters, field by field. */
export function sanitizeParams(value: unknown): ImageParams {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const pick = <T extends string>(values: readonly T[], x: unknown, fallback: T): T =>
    typeof x === 'string' && oneOf(values, x) ? x : fallback;
  const int = (x: unknown, min: number, max: number, fallback: number) =>
    typeof x === 'number' && inRange(x, min, max) ? x : fallback;
  const d = DEFAULT_PARAMS;
  return {
    model: pick(IMAGE_MODELS, v.model, d.model),
    size: pick(SIZE_CHOICES, v.size, d.size),
    customWidth: typeof v.customWidth === 'string' ? v.customWidth : d.customWidth,
    customHeight: typeof v.customHeight === 'string' ? v.customHeight : d.customHeight,
    quality: pick(QUALITIES, v.quality, d.quality),
    outputFormat: pick(OUTPUT_FORMATS, v.outputFormat, d.outputFormat),
    compression: int(v.compression, 0, 100, d.compression),
    background: pick(BACKGROUNDS, v.background, d.background),
    moderation: pick(MODERATIONS, v.moderation, d.moderation),
    n: int(v.n, LIMITS.nMin, LIMITS.nMax, d.n),
    stream: typeof v.stream === 'boolean' ? v.stream : d.stream,
    partialImages: int(v.partialImages, 0, LIMITS.partialImagesMax, d.partialImages),
  };
}
