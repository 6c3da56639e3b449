import type { TokenUsage } from '../shared/imageParams';
import type { OutputSpec } from './imageRequest';
import type { ImageTool, ResponsesRequest } from './responsesRequest';
import { textTokens } from './tokens';

type Json = Record<string, unknown>;

/** The fixed parts of one response, shared by every snapshot the stream carries. */
export interface ResponseShell {
  id: string;
  createdAt: number;
  request: ResponsesRequest;
  /** The request's tools with the image tool replaced by the settings actually used. */
  tools: unknown[];
}

/**
 * The image tool as the upstream echoes it: the settings used, 'auto' where it silently chose
 * (a downgrade shows up as size and quality 'auto' here).
 */
export function toolEcho(tool: ImageTool, out: OutputSpec, downgraded: boolean): Json {
  return {
    type: 'image_generation',
    model: tool.model,
    action: tool.action,
    background: out.background,
    moderation: tool.moderation ?? 'auto',
    output_compression: tool.outputCompression ?? 100,
    output_format: out.format,
    partial_images: tool.partialImages,
    quality: downgraded ? 'auto' : out.quality,
    size: downgraded ? 'auto' : `${out.width}x${out.height}`,
  };
}

/** The text model's own usage: small, and never what an image is billed from. */
export function textUsage(request: ResponsesRequest, outputText: string): Json {
  const input = textTokens(request.instructions ?? '') + textTokens(request.prompt) + 8;
  const output = Math.max(1, textTokens(outputText));
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

export function responseSnapshot(
  shell: ResponseShell,
  status: 'in_progress' | 'completed',
  output: Json[] = [],
  usage: Json | null = null,
  imageUsage?: TokenUsage,
): Json {
  return {
    id: shell.id,
    object: 'response',
    created_at: shell.createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: shell.request.instructions,
    max_output_tokens: null,
    model: shell.request.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: shell.request.toolChoice,
    tools: shell.tools,
    top_p: 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
    ...(imageUsage ? { tool_usage: { image_gen: imageUsage } } : {}),
  };
}

export function messageItem(
  id: string,
  status: 'in_progress' | 'completed',
  text: string | null,
): Json {
  return {
    id,
    type: 'message',
    status,
    role: 'assistant',
    content: text === null ? [] : [{ type: 'output_text', text, annotations: [] }],
  };
}
