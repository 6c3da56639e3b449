import { isImageModel } from '../shared/models';
import { decodeDataUrl, imageUrlOf } from './editInputs';
import { invalidRequest } from './errors';
import { FieldReader } from './fields';
import { readImageSettings } from './imageRequest';
import type { ImageSettings } from './imageRequest';

export type Flavour = 'api' | 'bridge';

export interface ImageTool extends ImageSettings {
  index: number;
  action: 'generate' | 'edit' | 'auto';
  mask?: Buffer;
}

export interface ResponsesRequest {
  model: string;
  instructions: string | null;
  /** The user's text: every input_text (or string content) of user messages, joined. */
  prompt: string;
  /** Bytes of the user's input_image parts, in order. */
  images: Buffer[];
  tools: unknown[];
  toolChoice: unknown;
  imageTool?: ImageTool;
  stream: boolean;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates a Responses body like the upstream: the bridge additionally insists on non-empty
 * `instructions` and `stream: true`, and no tool may carry `n` (n images = n calls).
 */
export function readResponsesRequest(raw: Json, flavour: Flavour): ResponsesRequest {
  const f = new FieldReader(raw, false);
  const model = f.requiredString('model');
  if (isImageModel(model)) {
    throw invalidRequest(
      'model',
      `The model '${model}' is not supported with the Responses API; use a text model with the image_generation tool.`,
      'model_not_supported',
    );
  }
  const instructions = f.string('instructions') ?? null;
  if (flavour === 'bridge' && !instructions?.trim())
    throw invalidRequest('instructions', 'Instructions are required', 'missing_required_parameter');
  const stream = f.boolean('stream') ?? false;
  if (flavour === 'bridge' && !stream)
    throw invalidRequest('stream', 'Stream must be set to true', 'invalid_value');
  const { prompt, images } = readInput(raw.input);
  const tools = raw.tools ?? [];
  if (!Array.isArray(tools))
    throw invalidRequest('tools', "Invalid type for 'tools': expected an array.", 'invalid_type');
  tools.forEach((tool, index) => {
    if (isObject(tool) && 'n' in tool) {
      throw invalidRequest(
        `tools[${index}].n`,
        `Unknown parameter: 'tools[${index}].n'.`,
        'unknown_parameter',
      );
    }
  });
  const index = tools.findIndex((tool) => isObject(tool) && tool.type === 'image_generation');
  return {
    model,
    instructions,
    prompt,
    images,
    tools,
    toolChoice: raw.tool_choice ?? 'auto',
    imageTool: index < 0 ? undefined : readTool(tools[index] as Json, index),
    stream,
  };
}

function readTool(tool: Json, index: number): ImageTool {
  const prefix = `tools[${index}].`;
  const f = new FieldReader(tool, false, prefix);
  const mask = tool.input_image_mask;
  return {
    ...readImageSettings(f, 'image-model-2'),
    index,
    action: f.oneOf('action', ['generate', 'edit', 'auto'] as const) ?? 'auto',
    mask:
      mask === undefined || mask === null
        ? undefined
        : imageUrlOf(mask, `${prefix}input_image_mask`),
  };
}

function readInput(input: unknown): { prompt: string; images: Buffer[] } {
  if (typeof input === 'string') return { prompt: input, images: [] };
  if (!Array.isArray(input))
    throw invalidRequest(
      'input',
      "Missing required parameter: 'input'.",
      'missing_required_parameter',
    );
  const texts: string[] = [];
  const images: Buffer[] = [];
  input.forEach((item, i) => {
    // Earlier turns (assistant messages, tool calls) are context only; the request is the user's.
    if (!isObject(item) || (item.role ?? 'user') !== 'user') return;
    if (typeof item.content === 'string') {
      texts.push(item.content);
      return;
    }
    if (!Array.isArray(item.content)) return;
    item.content.forEach((part, j) => {
      if (!isObject(part)) return;
      if (part.type === 'input_text' && typeof part.text === 'string') texts.push(part.text);
      if (part.type === 'input_image')
        images.push(decodeDataUrl(part.image_url, `input[${i}].content[${j}].image_url`));
    });
  });
  return { prompt: texts.join('\n'), images };
}
