import { DEFAULT_TEXT_MODELS } from '../shared/models';
import { requireApiKey } from './auth';
import { recordCall } from './context';
import type { Ctx } from './context';
import { sendJson } from './http';

/**
 * GET /v1/models. Like the real upstream it lists only text models: a client must not conclude
 * from the list that the image endpoints reject the image model (spec 1).
 */
export async function listModels(ctx: Ctx): Promise<void> {
  recordCall(ctx, 'models');
  requireApiKey(ctx);
  sendJson(ctx.res, 200, {
    object: 'list',
    data: DEFAULT_TEXT_MODELS.map((id) => ({
      id,
      object: 'model',
      created: 1_767_225_600,
      owned_by: 'atelier-simulator',
    })),
  });
}
