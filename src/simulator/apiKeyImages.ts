import { requireApiKey } from './auth';
import { noteImageParams, recordCall } from './context';
import type { Ctx } from './context';
import { readEditBody } from './editBody';
import { inspectEditInputs } from './editInputs';
import { engageFault } from './faultEffects';
import { readJsonObject } from './http';
import { readImageRequest } from './imageRequest';
import { answerImages } from './imagesReply';

/** POST /v1/images/generations (protocol page 2.1). */
export async function apiKeyGenerations(ctx: Ctx): Promise<void> {
  const call = recordCall(ctx, 'images.generate');
  requireApiKey(ctx);
  const raw = await readJsonObject(ctx.req);
  noteImageParams(call, raw);
  const fault = await engageFault(ctx, {
    imageWork: true,
    streaming: call.stream,
    prompt: call.prompt,
  });
  const request = readImageRequest(raw, false);
  await answerImages(ctx, { operation: 'generate', request, fault, headers: {} });
}

/** POST /v1/images/edits: multipart as the SDKs send it, or the JSON form. */
export async function apiKeyEdits(ctx: Ctx): Promise<void> {
  const call = recordCall(ctx, 'images.edit');
  requireApiKey(ctx);
  const body = await readEditBody(ctx, true);
  noteImageParams(call, body.raw);
  call.imageCount = body.images.length;
  call.hasMask = body.mask !== undefined;
  const fault = await engageFault(ctx, {
    imageWork: true,
    streaming: call.stream,
    prompt: call.prompt,
  });
  const request = readImageRequest(body.raw, body.fromForm);
  const inputs = await inspectEditInputs(
    ctx.state,
    body.images,
    body.mask,
    body.fromForm ? 'image' : 'images',
    'mask',
  );
  await answerImages(ctx, { operation: 'edit', request, inputs, fault, headers: {} });
}
