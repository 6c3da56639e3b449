import { invalidParam } from '../core/errors';
import { ERROR_CODES } from '../../shared/errors';
import {
  MODERATIONS,
  OUTPUT_FORMATS,
  QUALITIES,
  type Background,
  type Moderation,
  type OutputFormat,
  type Quality,
} from '../../shared/imageParams';
import { IMAGE_MODELS, isImageModel, type ImageModel } from '../../shared/models';
import {
  bodyKind,
  describeValue,
  invalidRequest,
  isAbsent,
  isPlainObject,
  missingParam,
  readBoolean,
  readEnum,
  readString,
  type ReadMode,
} from './fields';
import { checkNesting } from './nesting';
import { readBackground, readCompression, readPartialImages, readSize } from './imageOptions';

/** The `image_generation` tool's settings, validated; absent fields stay absent. */
export interface ImageToolOptions {
  /** Position of the tool in `tools`. */
  index: number;
  model?: ImageModel;
  quality?: Quality;
  size?: string;
  outputFormat?: OutputFormat;
  outputCompression?: number;
  background?: Background;
  moderation?: Moderation;
  partialImages?: number;
}

export interface ResponsesRequest {
  /** The body as received, for pass-through to the upstream. */
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  imageTool: ImageToolOptions | null;
}

const JSON_MODE: ReadMode = { coerceStrings: false };

/**
 * POST /v1/responses (spec 4.3): the main model is a text/agent model; image work goes through
 * the `image_generation` tool, whose settings get the same checks as the Images API.
 */
export function parseResponsesRequest(
  body: unknown,
  textModels: readonly string[],
): ResponsesRequest {
  if (!isPlainObject(body)) {
    throw invalidRequest(
      'The request body must be a JSON object with model, input and tools; got ' + bodyKind(body),
    );
  }
  // First: everything after this (the content filter, the upstream call) walks the body.
  checkNesting(body);
  const model = readMainModel(body.model, textModels);
  if (isAbsent(body.input))
    throw missingParam('input', 'input is required: the task text or an array of input items');
  if (typeof body.input !== 'string' && !Array.isArray(body.input)) {
    throw invalidParam(
      'input',
      `input must be a string or an array of input items; got ${describeValue(body.input)}`,
    );
  }
  const stream = isAbsent(body.stream) ? false : readBoolean(body.stream, 'stream', JSON_MODE);
  return { body, model, stream, imageTool: readTools(body.tools, textModels) };
}

function readMainModel(value: unknown, textModels: readonly string[]): string {
  const valid = textModels.length > 0 ? textModels.join(', ') : '(none configured)';
  if (isAbsent(value))
    throw missingParam('model', `model is required: a text/agent model such as ${valid}`);
  const model = readString(value, 'model');
  if (isImageModel(model)) {
    const example = textModels[0] ?? 'a text/agent model';
    throw invalidParam(
      'model',
      `'${model}' is an image model, not a main model for /v1/responses: use a text/agent model` +
        ` such as ${example} as model and pass the image_generation tool in tools` +
        ` (tools: [{"type": "image_generation"}])`,
      ERROR_CODES.wrongModelKind,
    );
  }
  if (!textModels.includes(model)) {
    throw invalidParam(
      'model',
      `Model '${model}' is not available on /v1/responses. Valid models: ${valid}`,
      ERROR_CODES.unknownModel,
    );
  }
  return model;
}

function readTools(tools: unknown, textModels: readonly string[]): ImageToolOptions | null {
  if (isAbsent(tools)) return null;
  if (!Array.isArray(tools)) {
    throw invalidParam(
      'tools',
      `tools must be an array of tool objects; got ${describeValue(tools)}`,
    );
  }
  let imageTool: ImageToolOptions | null = null;
  for (const [index, tool] of tools.entries()) {
    const param = `tools[${index}]`;
    if (!isPlainObject(tool)) {
      throw invalidParam(param, `${param} must be a tool object; got ${describeValue(tool)}`);
    }
    if (tool.type !== 'image_generation') continue;
    if (imageTool) {
      throw invalidParam(
        param,
        `${param}: only one image_generation tool is allowed (tools[${imageTool.index}] is one already)`,
      );
    }
    imageTool = readImageTool(tool, index, textModels);
  }
  return imageTool;
}

function readImageTool(
  tool: Record<string, unknown>,
  index: number,
  textModels: readonly string[],
): ImageToolOptions {
  const p = (name: string) => `tools[${index}].${name}`;
  const get = (name: string): unknown => (isAbsent(tool[name]) ? undefined : tool[name]);
  const options: ImageToolOptions = { index };
  if (get('n') !== undefined) {
    throw invalidParam(
      p('n'),
      `${p('n')} is not supported: the image_generation tool makes one image per call` +
        ' (use /v1/images/generations with n for several images)',
      ERROR_CODES.unsupportedParameter,
    );
  }
  if (get('model') !== undefined)
    options.model = readToolModel(get('model'), p('model'), textModels);
  if (get('quality') !== undefined)
    options.quality = readEnum(get('quality'), p('quality'), QUALITIES);
  if (get('size') !== undefined) options.size = readSize(get('size'), p('size'));
  if (get('output_format') !== undefined) {
    options.outputFormat = readEnum(get('output_format'), p('output_format'), OUTPUT_FORMATS);
  }
  if (get('output_compression') !== undefined) {
    const format = options.outputFormat ?? 'png';
    options.outputCompression = readCompression(
      get('output_compression'),
      p('output_compression'),
      format,
      JSON_MODE,
    );
  }
  if (get('background') !== undefined)
    options.background = readBackground(get('background'), p('background'));
  if (get('moderation') !== undefined)
    options.moderation = readEnum(get('moderation'), p('moderation'), MODERATIONS);
  if (get('partial_images') !== undefined) {
    options.partialImages = readPartialImages(
      get('partial_images'),
      p('partial_images'),
      JSON_MODE,
    );
  }
  return options;
}

function readToolModel(value: unknown, param: string, textModels: readonly string[]): ImageModel {
  const model = readString(value, param);
  if (isImageModel(model)) return model;
  const valid = IMAGE_MODELS.join(', ');
  if (textModels.includes(model)) {
    throw invalidParam(
      param,
      `${param}: '${model}' is a text/agent model; the image_generation tool needs an image model (${valid}).` +
        ' The text model belongs in the top-level model.',
      ERROR_CODES.wrongModelKind,
    );
  }
  throw invalidParam(
    param,
    `${param}: unknown model '${model}'. Valid image models: ${valid}`,
    ERROR_CODES.unknownModel,
  );
}
