import { z } from 'zod';
import type { Ctx } from './context';
import { invalidRequest } from './errors';
import { faultListSchema } from './faults';
import { readJsonObject, sendJson } from './http';
import type { Fault } from './types';

/** Control API for tests in other processes; in-process tests use `sim.faults` and `sim.calls`. */

async function readValid<T>(ctx: Ctx, schema: z.ZodType<T>): Promise<T> {
  const parsed = schema.safeParse(await readJsonObject(ctx.req));
  if (!parsed.success) throw invalidRequest(null, z.prettifyError(parsed.error), 'invalid_value');
  return parsed.data;
}

export async function addFaults(ctx: Ctx): Promise<void> {
  const { faults } = await readValid(ctx, faultListSchema);
  ctx.state.faults.add(...(faults as Fault[]));
  sendJson(ctx.res, 200, { pending: ctx.state.faults.pending });
}

export async function listFaults(ctx: Ctx): Promise<void> {
  sendJson(ctx.res, 200, { pending: ctx.state.faults.pending });
}

export async function clearFaults(ctx: Ctx): Promise<void> {
  ctx.state.faults.clear();
  sendJson(ctx.res, 200, { pending: [] });
}

export async function listCalls(ctx: Ctx): Promise<void> {
  sendJson(ctx.res, 200, { calls: ctx.state.calls });
}

export async function clearCalls(ctx: Ctx): Promise<void> {
  // In place: in-process holders of `sim.calls` keep seeing the live log.
  ctx.state.calls.length = 0;
  sendJson(ctx.res, 200, { calls: [] });
}

export async function revokeToken(ctx: Ctx): Promise<void> {
  const { token } = await readValid(ctx, z.object({ token: z.string().min(1) }));
  ctx.state.revoked.add(token);
  sendJson(ctx.res, 200, { revoked: true });
}

const refreshStateSchema = z.object({
  refresh_token: z.string().min(1),
  state: z.enum(['expired', 'invalidated']),
});

export async function setRefreshTokenState(ctx: Ctx): Promise<void> {
  const body = await readValid(ctx, refreshStateSchema);
  ctx.state.oauth.setRefreshState(body.refresh_token, body.state);
  sendJson(ctx.res, 200, { refresh_token: body.refresh_token, state: body.state });
}

/** The latest edit's first image and mask as received, base64 (`null` before any edit). */
export async function lastEdit(ctx: Ctx): Promise<void> {
  const last = ctx.state.lastEdit;
  sendJson(ctx.res, 200, {
    last_edit: last && {
      at: last.at,
      image: last.image.toString('base64'),
      mask: last.mask?.toString('base64') ?? null,
    },
  });
}
