import type { NextFunction, Request, Response } from 'express';
import { PARENT_IMAGE_HEADER } from '../../shared/admin';
import { invalidParam } from '../errors';
import type { ImageStore } from '../images/store';
import type { ImageDelivery } from './routes/serveImages';

/**
 * `x-atelier-parent-image: <id>` on an edit made from the gallery links the new image to the one
 * it was made from. Checked before any upstream work: an unknown id is a 400, not a lost link.
 */
export function parentImage(exists: (id: string) => boolean) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const value = req.headers[PARENT_IMAGE_HEADER];
    if (value === undefined || req.method !== 'POST') {
      next();
      return;
    }
    const id = String(value).trim();
    if (!/^img_[0-9a-f]{1,64}$/.test(id) || !exists(id)) {
      next(
        invalidParam(
          PARENT_IMAGE_HEADER,
          `${PARENT_IMAGE_HEADER} names no image in the gallery: '${id.slice(0, 80)}'.`,
        ),
      );
      return;
    }
    res.locals.parentImageId = id;
    next();
  };
}

/**
 * Decides which delivered images the gallery keeps: the studio's always, API callers' while the
 * setting is on, and always those of a caller who left before the reply (it was paid for and
 * nobody else has it). The store writes them later, off the request path.
 */
export function imageKeeper(
  store: ImageStore,
  keepApiImages: () => boolean,
  log: (line: string) => void,
) {
  return (delivery: ImageDelivery): void => {
    const { res, draft, options } = delivery;
    const studio = res.locals.studio === true;
    if (!studio && delivery.connected && !keepApiImages()) return;
    try {
      store.hold({
        requestId: draft.requestId,
        source: studio ? 'studio' : 'api',
        endpoint: draft.endpoint,
        prompt: options.prompt,
        model: options.model,
        requestedSize: options.size,
        quality: options.quality ?? 'auto',
        outputCompression: options.outputCompression ?? null,
        background: options.background ?? 'auto',
        moderation: options.moderation ?? null,
        apiKeyId: draft.apiKeyId,
        parentId: (res.locals.parentImageId as string | undefined) ?? null,
        mask: delivery.mask ? { bytes: delivery.mask.bytes, format: delivery.mask.format } : null,
        images: delivery.images.map((image) => ({
          b64: image.outcome.b64,
          width: image.delivered.width,
          height: image.delivered.height,
          format: image.delivered.format,
          revisedPrompt: image.outcome.revisedPrompt,
          fallbackStep: image.fallbackStep,
          usage: image.usage,
        })),
      });
    } catch (error) {
      // The gallery is a convenience: it must never cost the caller their reply.
      log(`request ${draft.requestId}: images not kept: ${String(error)}`);
    }
  };
}
