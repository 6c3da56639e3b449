import { emptyUsage } from '../shared/imageParams';
import type { Ctx } from './context';
import { inspectEditInputs } from './editInputs';
import type { EditInputs } from './editInputs';
import { newId } from './http';
import { downgradedSize, revisePrompt, runImageJob } from './imageJob';
import { resolveOutput } from './imageRequest';
import type { OutputSpec } from './imageRequest';
import { pause, textLatencyMs } from './latency';
import { messageItem, responseSnapshot, textUsage, toolEcho } from './responsesEvents';
import type { ResponseShell } from './responsesEvents';
import type { ImageTool, ResponsesRequest } from './responsesRequest';
import { imageUsage } from './tokens';
import type { Fault } from './types';
import { requestSeed } from './variant';

type Json = Record<string, unknown>;
export type Emit = (type: string, fields: Json) => Promise<void>;

export const REFUSAL_TEXT =
  "I'm sorry, but I can't create that image. It may violate our content policies.";

interface ImagePlan {
  tool: ImageTool;
  out: OutputSpec;
  downgraded: boolean;
  inputs?: EditInputs;
}

/** Everything decided before the first byte: validation errors must still be plain HTTP 400s. */
export interface ResponsePlan {
  shell: ResponseShell;
  image?: ImagePlan;
  /** Text-only answer: no image tool, or a refusal. */
  text?: string;
}

export async function planResponse(
  ctx: Ctx,
  request: ResponsesRequest,
  fault: Fault | undefined,
): Promise<ResponsePlan> {
  const shell: ResponseShell = {
    id: newId('resp'),
    createdAt: Math.floor(Date.now() / 1000),
    request,
    tools: request.tools,
  };
  const tool = request.imageTool;
  if (!tool) return { shell, text: `Simulated reply to: ${request.prompt.slice(0, 120)}` };
  const edit = tool.action === 'edit' || (tool.action === 'auto' && request.images.length > 0);
  const inputs = edit
    ? await inspectEditInputs(
        ctx.state,
        request.images,
        tool.mask,
        'input',
        `tools[${tool.index}].input_image_mask`,
      )
    : undefined;
  let out = resolveOutput(tool, inputs?.images[0]);
  const downgraded = fault?.kind === 'downgrade';
  if (downgraded) out = { ...out, ...downgradedSize(out), quality: 'medium' };
  const tools = request.tools.map((t, i) =>
    i === tool.index ? toolEcho(tool, out, downgraded) : t,
  );
  const planned = { shell: { ...shell, tools } };
  if (fault?.kind === 'refusal') return { ...planned, text: REFUSAL_TEXT };
  if (fault?.kind === 'no_image') return planned;
  return { ...planned, image: { tool, out, downgraded, inputs } };
}

/**
 * Emits the event sequence of one response and returns the final response object. Every
 * snapshot is a full response so openai-node's accumulator can replace its state with it.
 */
export async function runResponse(
  ctx: Ctx,
  plan: ResponsePlan,
  streaming: boolean,
  emit: Emit,
): Promise<Json> {
  const { shell } = plan;
  await emit('response.created', { response: responseSnapshot(shell, 'in_progress') });
  await emit('response.in_progress', { response: responseSnapshot(shell, 'in_progress') });
  await pause(textLatencyMs(ctx.state.opts.speed), ctx.signal);
  let output: Json[] = [];
  let image = emptyUsage();
  let said = '';
  if (plan.text !== undefined) {
    said = plan.text;
    output = [await textOutput(plan.text, emit)];
  } else if (plan.image) {
    const result = await imageOutput(ctx, plan, plan.image, streaming, emit);
    output = [result.item];
    image = result.usage;
  }
  const final = responseSnapshot(shell, 'completed', output, textUsage(shell.request, said), image);
  await emit('response.completed', { response: final });
  return final;
}

async function textOutput(text: string, emit: Emit): Promise<Json> {
  const id = newId('msg');
  const at = { item_id: id, output_index: 0, content_index: 0 };
  await emit('response.output_item.added', {
    output_index: 0,
    item: messageItem(id, 'in_progress', null),
  });
  await emit('response.content_part.added', {
    ...at,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  for (const delta of text.match(/\S+\s*/g) ?? []) {
    await emit('response.output_text.delta', { ...at, delta, logprobs: [] });
  }
  await emit('response.output_text.done', { ...at, text, logprobs: [] });
  await emit('response.content_part.done', {
    ...at,
    part: { type: 'output_text', text, annotations: [] },
  });
  const item = messageItem(id, 'completed', text);
  await emit('response.output_item.done', { output_index: 0, item });
  return item;
}

async function imageOutput(
  ctx: Ctx,
  plan: ResponsePlan,
  image: ImagePlan,
  streaming: boolean,
  emit: Emit,
) {
  const { request } = plan.shell;
  const { out, inputs, downgraded, tool } = image;
  const id = newId('ig');
  const at = { item_id: id, output_index: 0 };
  const echo = toolEcho(tool, out, downgraded);
  await emit('response.output_item.added', {
    output_index: 0,
    item: { id, type: 'image_generation_call', status: 'in_progress', result: null },
  });
  await emit('response.image_generation_call.in_progress', at);
  await emit('response.image_generation_call.generating', at);
  let partials = 0;
  const job = {
    prompt: request.prompt,
    variant: 0,
    seed: requestSeed(ctx.req.headers),
    out,
    partialImages: tool.partialImages,
    edit: inputs ? { image: inputs.images[0]!.bytes, mask: inputs.mask?.bytes } : undefined,
    payload: ctx.state.opts.payload,
    speed: ctx.state.opts.speed,
    signal: ctx.signal,
  };
  const result = await runImageJob(
    job,
    streaming
      ? async (b64, index) => {
          partials += 1;
          await emit('response.image_generation_call.partial_image', {
            ...at,
            partial_image_b64: b64,
            partial_image_index: index,
            size: echo.size,
            quality: echo.quality,
            output_format: out.format,
            background: out.background,
          });
        }
      : undefined,
  );
  await emit('response.image_generation_call.completed', at);
  const item = {
    id,
    type: 'image_generation_call',
    status: 'completed',
    action: inputs ? 'edit' : 'generate',
    background: out.background,
    output_format: out.format,
    quality: echo.quality,
    size: echo.size,
    revised_prompt: revisePrompt(request.prompt),
    result,
  };
  await emit('response.output_item.done', { output_index: 0, item });
  const usage = imageUsage({
    prompt: request.prompt,
    inputImages: inputs?.images ?? [],
    outputs: [out],
    partialImages: partials,
  });
  return { item, usage };
}
