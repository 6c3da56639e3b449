import { invalidParam } from '../core/errors';
import { ERROR_CODES } from '../../shared/errors';
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
} from '../../shared/imageParams';
import { IMAGE_MODELS, isImageModel, type ImageModel } from '../../shared/models';
import { checkSize } from '../../shared/sizeRules';
import {
  codePointsUpTo,
  isAbsent,
  missingParam,
  readBoolean,
  readEnum,
  readInteger,
  readString,
  unknownParameter,
  type ReadMode,
} from './fields';

/** The scalar parameters of generations and edits (spec 4.1, 4.2), typed and defaulted. */
export interface ImageOptions {
  model: ImageModel;
  prompt: string;
  n: number;
  /** `auto` or `<width>x<height>` that passed every size rule of spec 8.1. */
  size: string;
  quality?: Quality;
  outputFormat: OutputFormat;
  outputCompression?: number;
  background?: Background;
  moderation?: Moderation;
  stream: boolean;
  partialImages: number;
  user?: string;
  /** `url`: answer with signed URLs on the gateway's address instead of base64 (absent: b64_json). */
  responseFormat?: 'url';
  /** DALL-E-era values accepted for older clients, and what was done with them (a warning header). */
  notices?: string[];
}

export interface ImageOptionsContext {
  endpoint: 'generations' | 'edits';
  /** Multipart bodies carry every value as a string: accept `"2"`, `"true"`. Never for JSON. */
  coerceStrings?: boolean;
}

export const MAX_PROMPT_CHARS = 32_000;
export const MAX_USER_CHARS = 256;

export const IMAGE_PARAMETERS = [
  'model',
  'prompt',
  'n',
  'size',
  'quality',
  'output_format',
  'output_compression',
  'background',
  'moderation',
  'stream',
  'partial_images',
  'user',
  'response_format',
  'input_fidelity',
  'style',
] as const;

/**
 * DALL-E 3's quality names, sent by older clients (LangChain's DallEAPIWrapper always sends one):
 * read as the spec's quality that means the same ('standard' is normal work, 'hd' final).
 */
const DALL_E_QUALITIES: ReadonlyMap<string, Quality> = new Map([
  ['standard', 'medium'],
  ['hd', 'high'],
]);
const DALL_E_STYLES = ['vivid', 'natural'] as const;

export function parseImageOptions(
  fields: Record<string, unknown>,
  ctx: ImageOptionsContext,
): ImageOptions {
  const mode: ReadMode = { coerceStrings: ctx.coerceStrings === true };
  const where = `/v1/images/${ctx.endpoint}`;
  for (const name of Object.keys(fields)) {
    if (!(IMAGE_PARAMETERS as readonly string[]).includes(name)) {
      throw unknownParameter(name, IMAGE_PARAMETERS, where);
    }
  }
  // A form cannot send null: an empty optional text field is the multipart spelling of "absent".
  const get = (name: string): unknown => {
    const value = fields[name];
    if (mode.coerceStrings && value === '') return undefined;
    return isAbsent(value) ? undefined : value;
  };

  const model = readImageModel(get('model'), 'model', where);
  const prompt = readPrompt(fields.prompt);
  const n = isAbsent(get('n')) ? 1 : readInteger(get('n'), 'n', LIMITS.nMin, LIMITS.nMax, mode);
  const size = isAbsent(get('size')) ? 'auto' : readSize(get('size'), 'size');
  const notices: string[] = [];
  const quality = optional(get('quality'), (v) => readQuality(v, notices));
  const outputFormat =
    optional(get('output_format'), (v) => readEnum(v, 'output_format', OUTPUT_FORMATS)) ?? 'png';
  const outputCompression = optional(get('output_compression'), (v) =>
    readCompression(v, 'output_compression', outputFormat, mode),
  );
  const background = optional(get('background'), (v) => readBackground(v, 'background'));
  const moderation = optional(get('moderation'), (v) => readEnum(v, 'moderation', MODERATIONS));
  const stream = isAbsent(get('stream')) ? false : readBoolean(get('stream'), 'stream', mode);
  const partialImages = isAbsent(get('partial_images'))
    ? 0
    : readPartialImages(get('partial_images'), 'partial_images', mode);
  if (partialImages > 0 && !stream) {
    throw invalidParam(
      'partial_images',
      `partial_images ${partialImages} needs stream: true (partial images are only sent as stream events)`,
    );
  }
  const user = optional(get('user'), readUser);
  const responseFormat = readResponseFormat(get('response_format'), stream);
  const style = optional(get('style'), (v) => readEnum(v, 'style', DALL_E_STYLES));
  if (style !== undefined) notices.push(`style '${style}' is a DALL-E 3 parameter and was ignored`);
  if (!isAbsent(get('input_fidelity'))) {
    throw invalidParam(
      'input_fidelity',
      'input_fidelity must not be sent: the model processes input images at high fidelity automatically',
      ERROR_CODES.unsupportedParameter,
    );
  }

  const options: ImageOptions = { model, prompt, n, size, outputFormat, stream, partialImages };
  if (quality !== undefined) options.quality = quality;
  if (outputCompression !== undefined) options.outputCompression = outputCompression;
  if (background !== undefined) options.background = background;
  if (moderation !== undefined) options.moderation = moderation;
  if (user !== undefined) options.user = user;
  if (responseFormat === 'url') options.responseFormat = 'url';
  if (notices.length > 0) options.notices = notices;
  return options;
}

/**
 * `n` as the caller sent it, when it is a valid count (an integer from 1 to 10), else null. The
 * usage record notes what a rejected request asked for; a value such as 1e300 or 2.5 must never
 * reach its integer column.
 */
export function validCount(value: unknown): number | null {
  return typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= LIMITS.nMin &&
    value <= LIMITS.nMax
    ? value
    : null;
}

function optional<T>(value: unknown, read: (value: unknown) => T): T | undefined {
  return isAbsent(value) ? undefined : read(value);
}

export function readImageModel(value: unknown, param: string, where: string): ImageModel {
  if (isAbsent(value)) {
    throw missingParam(param, `${param} is required: one of ${IMAGE_MODELS.join(', ')}`);
  }
  const model = readString(value, param);
  if (!isImageModel(model)) {
    throw invalidParam(
      param,
      `Model '${model}' is not available on ${where}. Valid models: ${IMAGE_MODELS.join(', ')}`,
      ERROR_CODES.unknownModel,
    );
  }
  return model;
}

function readPrompt(value: unknown): string {
  if (isAbsent(value)) throw missingParam('prompt', 'prompt is required: describe the image');
  const prompt = readString(value, 'prompt');
  // The length comes first, counted without copying: trim() and the content filter would walk
  // (and copy) a text of any size, and a 400 MB JSON edit may carry a prompt of 100 MB.
  if (codePointsUpTo(prompt, MAX_PROMPT_CHARS) > MAX_PROMPT_CHARS) {
    throw invalidParam(
      'prompt',
      `prompt is longer than ${MAX_PROMPT_CHARS} characters (${prompt.length} UTF-16 code units);` +
        ` the maximum is ${MAX_PROMPT_CHARS}`,
    );
  }
  if (prompt.trim() === '') throw missingParam('prompt', 'prompt must not be empty');
  return prompt;
}

/** Size rules live in src/shared/sizeRules.ts; the message is the failing rule's own message. */
export function readSize(value: unknown, param: string): string {
  const size = readString(value, param);
  const check = checkSize(size);
  if (!check.ok) throw invalidParam(param, check.message, ERROR_CODES.invalidSize);
  return size;
}

export function readCompression(
  value: unknown,
  param: string,
  outputFormat: OutputFormat,
  mode: ReadMode,
): number {
  const compression = readInteger(value, param, LIMITS.compressionMin, LIMITS.compressionMax, mode);
  if (outputFormat === 'png') {
    throw invalidParam(
      param,
      `${param} applies only to jpeg and webp output; the output format is png` +
        ' (set output_format to jpeg or webp, or leave out output_compression)',
    );
  }
  return compression;
}

export function readBackground(value: unknown, param: string): Background {
  if (value === 'transparent') {
    throw invalidParam(
      param,
      `${param} 'transparent' is not supported by this model: transparent backgrounds are not` +
        ` available; use 'auto' or 'opaque'`,
    );
  }
  return readEnum(value, param, BACKGROUNDS);
}

export function readPartialImages(value: unknown, param: string, mode: ReadMode): number {
  return readInteger(value, param, LIMITS.partialImagesMin, LIMITS.partialImagesMax, mode);
}

function readUser(value: unknown): string {
  const user = readString(value, 'user');
  if (user.length > MAX_USER_CHARS) {
    throw invalidParam(
      'user',
      `user is ${user.length} characters; the maximum is ${MAX_USER_CHARS}`,
    );
  }
  return user;
}

function readQuality(value: unknown, notices: string[]): Quality {
  // A Map, not an object: 'constructor' or '__proto__' must not read as a DALL-E quality.
  const dallE = typeof value === 'string' ? DALL_E_QUALITIES.get(value) : undefined;
  if (typeof value === 'string' && dallE !== undefined) {
    notices.push(`quality '${value}' is a DALL-E 3 value and was read as '${dallE}'`);
    return dallE;
  }
  return readEnum(value, 'quality', QUALITIES);
}

/**
 * `b64_json` (the default) puts the image in the reply; `url` puts a signed URL on the gateway's
 * own address there instead, valid for an hour, for clients that only read `url`. Stream events
 * always carry base64, so `url` is refused with `stream: true` rather than silently ignored.
 */
function readResponseFormat(value: unknown, stream: boolean): 'b64_json' | 'url' {
  if (isAbsent(value)) return 'b64_json';
  const format = readEnum(value, 'response_format', ['b64_json', 'url'] as const);
  if (format === 'url' && stream) {
    throw invalidParam(
      'response_format',
      "response_format 'url' cannot be used with stream: true: stream events carry the image as b64_json",
      ERROR_CODES.unsupportedParameter,
    );
  }
  return format;
}
