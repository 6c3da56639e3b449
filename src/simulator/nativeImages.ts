import { accountUsagePercent, requireSubscription } from './auth';
import { noteImageParams, recordCall } from './context';
import type { Ctx } from './context';
import { readEditBody } from './editBody';
import { inspectEditInputs } from './editInputs';
import { SimHttpError } from './errors';
import { engageFault, usageHeaders } from './faultEffects';
import { readJsonObject } from './http';
import { readImageRequest } from './imageRequest';
import { answerImages } from './imagesReply';

/** Backends without the native channel answer 404: clients must fall back to the bridge. */
function requireChannel(ctx: Ctx): void {
  if (!ctx.state.opts.nativeImages) {
    throw new SimHttpError(
      404,
      'invalid_request_error',
      'not_found',
      `Unknown route ${ctx.url.pathname}.`,
    );
  }
}

function windowHeaders(ctx: Ctx, accountId: string): Record<string, string> {
  return usageHeaders(accountUsagePercent(ctx, accountId), 3600);
}

/** POST /backend-api/codex/images/generations (protocol page 2.2a): Images-API JSON both ways. */
export async function nativeGenerations(ctx: Ctx): Promise<void> {
  const call = recordCall(ctx, 'native.generate');
  requireChannel(ctx);
  const account = requireSubscription(ctx);
  const raw = await readJsonObject(ctx.req);
  noteImageParams(call, raw);
  const fault = await engageFault(ctx, {
    imageWork: true,
    streaming: call.stream,
    prompt: call.prompt,
    accountId: account.accountId,
    planType: account.planType,
  });
  const request = readImageRequest(raw, false);
  const headers = windowHeaders(ctx, account.accountId);
  await answerImages(ctx, { operation: 'generate', request, fault, headers });
}

/** POST /backend-api/codex/images/edits: JSON with `images: [{image_url}]`, `mask: {image_url}`. */
export async function nativeEdits(ctx: Ctx): Promise<void> {
  const call = recordCall(ctx, 'native.edit');
  requireChannel(ctx);
  const account = requireSubscription(ctx);
  const body = await readEditBody(ctx, false);
  noteImageParams(call, body.raw);
  call.imageCount = body.images.length;
  call.hasMask = body.mask !== undefined;
  const fault = await engageFault(ctx, {
    imageWork: true,
    streaming: call.stream,
    prompt: call.prompt,
    accountId: account.accountId,
    planType: account.planType,
  });
  const request = readImageRequest(body.raw, false);
  const inputs = await inspectEditInputs(ctx.state, body.images, body.mask, 'images', 'mask');
  const headers = windowHeaders(ctx, account.accountId);
  await answerImages(ctx, { operation: 'edit', request, inputs, fault, headers });
}
