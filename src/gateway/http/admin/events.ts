import { Router } from 'express';
import type { BudgetAlert } from '../../../shared/admin';
import type { ImagesRepository } from '../../gallery/repository';
import type { KeysRepository } from '../../keys/repository';
import type { UsageRepository } from '../../usage/repository';
import type { LiveEvents } from '../liveEvents';
import { imageView } from './images';
import { usageView } from './usage';

/** Comments keep the connection (and any proxy) from timing out while nothing happens. */
const KEEPALIVE_MS = 15_000;

export interface EventsAdminDeps {
  /** This instance's events and every other instance's (http/liveEvents.ts). */
  live: LiveEvents;
  usage: UsageRepository;
  keys: KeysRepository;
  images: ImagesRepository;
}

/**
 * GET /api/admin/events: the live request log (`usage`), new gallery images (`image`) and keys
 * passing 50, 80 or 100 % of their budget (`budget`), of every instance on the same database.
 */
export function eventsAdmin(deps: EventsAdminDeps): Router {
  const router = Router();
  router.get('/events', (_req, res) => {
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache, no-transform');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    const write = (event: string, data: unknown) => {
      if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    // A key's name is read from the database (a promise): events still go out in the order
    // they happened, each after the one before it.
    let previous: Promise<void> = Promise.resolve();
    const send = (event: string, data: () => Promise<unknown> | unknown) => {
      previous = previous
        .then(async () => {
          const value = await data();
          if (value !== null) write(event, value);
        })
        .catch(() => {
          // A lookup that failed leaves that one event out, never the stream.
        });
    };
    const keyName = async (id: string | null) =>
      id === null ? null : ((await deps.keys.get(id))?.name ?? null);
    const onUsage = (requestId: string) => {
      send('usage', async () => {
        const record = await deps.usage.get(requestId);
        if (!record) return null;
        const name = await keyName(record.apiKeyId);
        return usageView(record, () => name);
      });
    };
    const onImage = (imageId: string) => {
      send('image', async () => {
        const image = await deps.images.get(imageId);
        return image ? imageView(image) : null;
      });
    };
    const onBudget = (alert: BudgetAlert) => {
      send('budget', async () => ({ ...alert, apiKeyName: await keyName(alert.apiKeyId) }));
    };
    deps.live.on('usage', onUsage);
    deps.live.on('image', onImage);
    deps.live.on('budget', onBudget);
    const keepalive = setInterval(() => {
      if (!res.destroyed) res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    keepalive.unref();
    // The first bytes tell the client the subscription is live.
    res.write(': connected\n\n');
    res.once('close', () => {
      clearInterval(keepalive);
      deps.live.off('usage', onUsage);
      deps.live.off('image', onImage);
      deps.live.off('budget', onBudget);
    });
  });
  return router;
}
