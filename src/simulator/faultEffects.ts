import type { Ctx } from './context';
import { SimHttpError, SocketReset } from './errors';
import { pause } from './latency';
import type { Fault } from './types';

export interface FaultRequest {
  imageWork: boolean;
  /** Streams may take 'reset' after some events; other requests reset before answering. */
  streaming: boolean;
  accountId?: string;
  prompt?: string;
  planType?: string;
}

/**
 * Takes the next matching fault and applies what happens before any work: errors are thrown,
 * 'reset' kills the socket, 'slow' waits. Faults that shape the work itself (refusal, no_image,
 * downgrade, a mid-stream reset) are handed back to the handler.
 */
export async function engageFault(ctx: Ctx, request: FaultRequest): Promise<Fault | undefined> {
  // API-key routes note their key as the account (auth.ts), so faults can target one account.
  const accountId = request.accountId ?? ctx.call?.accountId;
  const fault = ctx.state.faults.take({ ...request, accountId, path: ctx.url.pathname });
  if (!fault) return undefined;
  if (ctx.call) ctx.call.fault = fault.kind;
  switch (fault.kind) {
    case 'usage_limit':
      throw usageLimitError(fault, request.planType ?? ctx.state.opts.planType);
    case 'http_error':
      throw httpFaultError(fault);
    case 'reset':
      if (request.streaming && fault.afterEvents !== undefined) return fault;
      if (!request.streaming && fault.afterBytes !== undefined) return fault;
      ctx.res.destroy();
      throw new SocketReset();
    case 'slow':
      await pause(fault.delayMs ?? 0, ctx.signal);
      return undefined;
    default:
      return fault;
  }
}

/** Window headers the subscription backend sends; a 429 shows the primary window used up. */
export function usageHeaders(
  primaryPercent: number,
  resetsInSeconds: number,
): Record<string, string> {
  return {
    'x-codex-primary-used-percent': String(primaryPercent),
    'x-codex-primary-reset-after-seconds': String(resetsInSeconds),
    'x-codex-primary-window-minutes': '300',
    'x-codex-secondary-used-percent': String(Math.floor(primaryPercent / 4)),
    'x-codex-secondary-reset-after-seconds': String(resetsInSeconds + 86_400),
    'x-codex-secondary-window-minutes': '10080',
  };
}

function usageLimitError(fault: Fault, planType: string): SimHttpError {
  const resetsIn = fault.resetsInSeconds ?? 3600;
  return new SimHttpError(
    429,
    'usage_limit_reached',
    'usage_limit_reached',
    fault.message ?? 'The usage limit has been reached',
    null,
    {
      plan_type: fault.planType ?? planType,
      resets_in_seconds: resetsIn,
      resets_at: Math.floor(Date.now() / 1000) + resetsIn,
    },
    { ...usageHeaders(100, resetsIn), 'retry-after': String(resetsIn) },
  );
}

const DEFAULTS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: 'invalid_value', message: 'Invalid request.' },
  401: {
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: 'Incorrect API key provided.',
  },
  403: { type: 'permission_error', code: 'forbidden', message: 'You are not allowed to do this.' },
  404: { type: 'invalid_request_error', code: 'not_found', message: 'Not found.' },
  429: {
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests.',
  },
  500: {
    type: 'server_error',
    code: null,
    message: 'The server had an error while processing your request. Sorry about that!',
  },
  502: { type: 'server_error', code: 'bad_gateway', message: 'Bad gateway.' },
  503: {
    type: 'server_error',
    code: 'server_is_overloaded',
    message: 'The engine is currently overloaded, please try again later.',
  },
  504: {
    type: 'server_error',
    code: 'timeout',
    message: 'The server timed out while processing your request.',
  },
};

function httpFaultError(fault: Fault): SimHttpError {
  const status = fault.status ?? 500;
  const fallback = DEFAULTS[status] ?? {
    type: 'server_error',
    code: null,
    message: `HTTP ${status}`,
  };
  const headers: Record<string, string> =
    fault.resetsInSeconds === undefined ? {} : { 'retry-after': String(fault.resetsInSeconds) };
  return new SimHttpError(
    status,
    fallback.type,
    fault.code ?? fallback.code,
    fault.message ?? fallback.message,
    fault.param ?? null,
    {},
    headers,
  );
}
