import type { TokenUsage } from '../shared/imageParams';
import type { Ctx } from './context';
import type { EditInputs } from './editInputs';
import { SimHttpError } from './errors';
import { sendJson, sendJsonCutOff } from './http';
import { downgradedSize, revisePrompt, runImageJob } from './imageJob';
import type { ImageJob } from './imageJob';
import { resolveOutput } from './imageRequest';
import type { ImageRequest } from './imageRequest';
import { SseStream } from './sse';
import { imageUsage } from './tokens';
import type { Fault } from './types';
import { firstVariant, requestSeed } from './variant';

export interface ImagesWork {
  operation: 'generate' | 'edit';
  request: ImageRequest;
  inputs?: EditInputs;
  /** A work-shaping fault handed back by engageFault. */
  fault?: Fault;
  headers: Record<string, string>;
}

/** What the reply says was used; a downgrade answers 'auto' like the observed upstream. */
interface Echo {
  size: string;
  quality: string;
  background: string;
  output_format: string;
}

export function moderationBlocked(): SimHttpError {
  return new SimHttpError(
    400,
    'image_generation_user_error',
    'moderation_blocked',
    'Your request was rejected as a result of our safety system.',
    null,
    { moderation_details: { moderation_stage: 'input', categories: ['simulated'] } },
  );
}

/** Answers an Images API call (API-key or native channel): JSON, or SSE when `stream` is set. */
export async function answerImages(ctx: Ctx, work: ImagesWork): Promise<void> {
  const { request, inputs, fault } = work;
  if (fault?.kind === 'refusal') throw moderationBlocked();
  const first = inputs?.images[0];
  let out = resolveOutput(request, first);
  const downgraded = fault?.kind === 'downgrade';
  if (downgraded) out = { ...out, ...downgradedSize(out), quality: 'medium' };
  const echo: Echo = {
    size: downgraded ? 'auto' : `${out.width}x${out.height}`,
    quality: downgraded ? 'auto' : out.quality,
    background: out.background,
    output_format: out.format,
  };
  const count = fault?.kind === 'no_image' ? 0 : request.n;
  const base = firstVariant(ctx.req.headers);
  const seed = requestSeed(ctx.req.headers);
  const job = (variant: number): ImageJob => ({
    prompt: request.prompt,
    variant: base + variant,
    seed,
    out,
    partialImages: request.partialImages,
    edit: first ? { image: first.bytes, mask: inputs?.mask?.bytes } : undefined,
    payload: ctx.state.opts.payload,
    speed: ctx.state.opts.speed,
    signal: ctx.signal,
  });
  const usageOf = (images: number, partials: number, withInput: boolean) =>
    reportedUsage(
      fault,
      imageUsage({
        prompt: withInput ? request.prompt : '',
        inputImages: withInput ? (inputs?.images ?? []) : [],
        outputs: Array.from({ length: images }, () => out),
        partialImages: partials,
      }),
    );

  if (request.stream) {
    await streamImages(ctx, work, echo, count, job, usageOf);
    return;
  }
  const images = await Promise.all(Array.from({ length: count }, (_, i) => runImageJob(job(i))));
  const body = {
    created: Math.floor(Date.now() / 1000),
    data: images.map((b64_json) => ({ b64_json, revised_prompt: revisePrompt(request.prompt) })),
    ...echo,
    usage: usageOf(count, 0, true),
  };
  if (fault?.kind === 'reset' && fault.afterBytes !== undefined) {
    sendJsonCutOff(ctx.res, body, fault.afterBytes, work.headers);
    return;
  }
  sendJson(ctx.res, 200, body, work.headers);
}

/**
 * n > 1 in one stream (undocumented upstream, decided here): images go one after another, each
 * with its partials then its `completed`, every event carrying `image_index`. Each completed
 * event holds that image's usage; the input tokens are counted on image 0 only, so the sum over
 * all completed events equals the usage of the same call without streaming.
 */
async function streamImages(
  ctx: Ctx,
  work: ImagesWork,
  echo: Echo,
  count: number,
  job: (variant: number) => ImageJob,
  usageOf: (images: number, partials: number, withInput: boolean) => TokenUsage | undefined,
): Promise<void> {
  const prefix = work.operation === 'edit' ? 'image_edit' : 'image_generation';
  const resetAfter = work.fault?.kind === 'reset' ? work.fault.afterEvents : undefined;
  const sse = new SseStream(ctx.res, ctx.signal, resetAfter);
  sse.open(work.headers);
  const several = work.request.n > 1;
  for (let index = 0; index < count; index += 1) {
    const tag = several ? { image_index: index } : {};
    let partials = 0;
    const b64 = await runImageJob(job(index), async (partial, partialIndex) => {
      partials += 1;
      await sse.send(`${prefix}.partial_image`, {
        b64_json: partial,
        partial_image_index: partialIndex,
        created_at: Math.floor(Date.now() / 1000),
        ...echo,
        ...tag,
      });
    });
    await sse.send(`${prefix}.completed`, {
      b64_json: b64,
      created_at: Math.floor(Date.now() / 1000),
      ...echo,
      usage: usageOf(1, partials, index === 0),
      ...tag,
    });
  }
  sse.end();
}

/**
 * The usage an upstream reports: none at all (`no_usage`, a careless upstream) or a million times
 * the real count (`absurd_usage`), else the real one. JSON leaves an undefined `usage` out.
 */
function reportedUsage(fault: Fault | undefined, usage: TokenUsage): TokenUsage | undefined {
  if (fault?.kind === 'no_usage') return undefined;
  if (fault?.kind !== 'absurd_usage') return usage;
  const scale = (n: number) => n * 1_000_000;
  return {
    input_tokens: scale(usage.input_tokens),
    input_tokens_details: {
      text_tokens: scale(usage.input_tokens_details.text_tokens),
      image_tokens: scale(usage.input_tokens_details.image_tokens),
    },
    output_tokens: scale(usage.output_tokens),
    output_tokens_details: {
      text_tokens: scale(usage.output_tokens_details.text_tokens),
      image_tokens: scale(usage.output_tokens_details.image_tokens),
    },
    total_tokens: scale(usage.total_tokens),
  };
}
