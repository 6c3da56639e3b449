import { IMAGE_MODELS } from '../../shared/models';
import { normaliseUsage } from '../../shared/tokenUsage';
import type { PricedUsage, UsageNotes } from '../usage/notes';
import type { ResponsesRequest } from '../validation/responsesRequest';

/** The parts of a Responses object the gateway reads (billing, failures, the gallery). */
export interface ResponseShape {
  usage?: unknown;
  tool_usage?: { image_gen?: unknown };
  output?: Array<{
    type?: string;
    result?: unknown;
    output_format?: unknown;
    size?: unknown;
    quality?: unknown;
  }>;
  error?: { message?: string; code?: string } | null;
  incomplete_details?: { reason?: string } | null;
  status?: string;
}

/** The parts of a Responses stream event the gateway reads. */
export interface EventShape {
  type?: string;
  response?: ResponseShape;
  message?: string;
  code?: string;
}

/** A value the upstream stated, unless it is missing or still `auto`. */
function concrete(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && value !== 'auto' ? value.slice(0, 20) : null;
}

/** Notes what a Responses call made (text and image tokens, the images) from its final response. */
export function billResponse(
  usage: UsageNotes,
  parsed: Pick<ResponsesRequest, 'model' | 'imageTool'>,
  response: ResponseShape | undefined,
): void {
  if (!response) return;
  const tool = parsed.imageTool;
  const parts: PricedUsage[] = [
    { model: parsed.model, usage: normaliseUsage(response.usage, { imageModel: false }) },
    // The image is billed from the tool's own usage: response.usage is the text model's.
    {
      model: tool?.model ?? IMAGE_MODELS[0],
      usage: normaliseUsage(response.tool_usage?.image_gen, { imageModel: true }),
    },
  ];
  const made = (response.output ?? []).filter(
    (item) => item.type === 'image_generation_call' && item.result,
  );
  // What the first image really is, as the upstream describes it (the tool may name nothing).
  const first = made[0];
  usage.delivered({
    parts,
    responded: true,
    images: made.length,
    deliveredSize: first ? concrete(first.size) : null,
    deliveredQuality: first ? concrete(first.quality) : null,
  });
  if (!tool?.outputFormat && first)
    usage.requested({ outputFormat: concrete(first.output_format) });
}
