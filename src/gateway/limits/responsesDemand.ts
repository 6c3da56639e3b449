import { IMAGE_MODELS } from '../../shared/models';
import type { AdmissionRequest } from '../billing/admission';
import { inputText } from '../imageService/responsesBody';
import type { ResponsesRequest } from '../validation/responsesRequest';

/**
 * What a Responses call may use, read before it is admitted: the text model's tokens (the
 * caller's words, its output bound) and, with the image tool, one image.
 */
export function responsesDemand(parsed: ResponsesRequest): AdmissionRequest {
  const text = inputText(parsed.body);
  const tool = parsed.imageTool;
  return {
    text: {
      model: parsed.model,
      text,
      maxOutputTokens: positiveInteger(parsed.body.max_output_tokens),
      inputImages: countInputImages(parsed.body.input),
    },
    image: tool && {
      model: tool.model ?? IMAGE_MODELS[0],
      prompt: text,
      size: tool.size ?? 'auto',
      quality: tool.quality,
      n: 1,
      partialImages: parsed.stream ? (tool.partialImages ?? 0) : 0,
    },
  };
}

function positiveInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** `input_image` parts anywhere in the input items (own properties only). */
function countInputImages(input: unknown): number {
  let count = 0;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      if (Object.hasOwn(value, 'type') && (value as { type: unknown }).type === 'input_image')
        count += 1;
      if (Object.hasOwn(value, 'content')) visit((value as { content: unknown }).content);
    }
  };
  visit(input);
  return count;
}
