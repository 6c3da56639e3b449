import { accountUsagePercent, requireApiKey, requireSubscription } from './auth';
import { recordCall } from './context';
import type { Ctx } from './context';
import { engageFault, usageHeaders } from './faultEffects';
import { readJsonObject, sendJson } from './http';
import { planResponse, runResponse } from './responsesFlow';
import { readResponsesRequest } from './responsesRequest';
import type { Flavour } from './responsesRequest';
import { ResponsesEventStream, SseStream } from './sse';
import type { SimCall } from './types';

/** POST /v1/responses: the API-key flavour; streams or answers one JSON response. */
export function apiKeyResponses(ctx: Ctx): Promise<void> {
  return handleResponses(ctx, 'api');
}

/** POST /backend-api/codex/responses: the subscription bridge (protocol page 2.2b), SSE only. */
export function bridgeResponses(ctx: Ctx): Promise<void> {
  return handleResponses(ctx, 'bridge');
}

async function handleResponses(ctx: Ctx, flavour: Flavour): Promise<void> {
  const call = recordCall(ctx, 'responses');
  const account = flavour === 'bridge' ? requireSubscription(ctx) : undefined;
  if (flavour === 'api') requireApiKey(ctx);
  const raw = await readJsonObject(ctx.req);
  call.model = typeof raw.model === 'string' ? raw.model : undefined;
  call.stream = raw.stream === true;
  const request = readResponsesRequest(raw, flavour);
  noteRequest(call, request);
  const fault = await engageFault(ctx, {
    imageWork: true,
    streaming: request.stream,
    prompt: request.prompt,
    accountId: account?.accountId,
    planType: account?.planType,
  });
  const plan = await planResponse(ctx, request, fault);
  const headers = account ? usageHeaders(accountUsagePercent(ctx, account.accountId), 3600) : {};
  if (!request.stream) {
    const final = await runResponse(ctx, plan, false, async () => {});
    sendJson(ctx.res, 200, final, headers);
    return;
  }
  const sse = new SseStream(
    ctx.res,
    ctx.signal,
    fault?.kind === 'reset' ? fault.afterEvents : undefined,
  );
  sse.open(headers);
  const events = new ResponsesEventStream(sse);
  await runResponse(ctx, plan, true, (type, fields) => events.emit(type, fields));
  sse.end();
}

function noteRequest(call: SimCall, request: ReturnType<typeof readResponsesRequest>): void {
  call.prompt = request.prompt;
  call.imageCount = request.images.length;
  const tool = request.imageTool;
  if (!tool) return;
  call.imageModel = tool.model;
  call.size = tool.size;
  call.quality = tool.quality;
  call.outputFormat = tool.outputFormat;
  call.partialImages = tool.partialImages;
  call.hasMask = tool.mask !== undefined;
}
