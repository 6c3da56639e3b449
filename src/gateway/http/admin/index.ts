import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { StudioSessionInfo } from '../../../shared/admin';
import type { StudioSessionGate } from '../studioSession';
import { accountsAdmin, type AccountsAdminDeps } from './accounts';
import { eventsAdmin, type EventsAdminDeps } from './events';
import { imagesAdmin, type ImagesAdminDeps } from './images';
import { keysAdmin, type KeysAdminDeps } from './keys';
import { pricesAdmin } from './prices';
import { runsAdmin, type RunsAdminDeps } from './runs';
import { settingsAdmin, type SettingsAdminDeps } from './settings';
import { boardsAdmin } from './boards';
import { studioRunsList } from './studioRunsList';
import { studioStateAdmin, type StudioStateAdminDeps } from './studioState';
import { studioWorkAdmin, type StudioWorkAdminDeps } from './studioWork';
import { usageAdmin, type UsageAdminDeps } from './usage';
import type { PricesRepository } from '../../storage/pricesRepository';
import type { BoardsRepository } from '../../gallery/boardsRepository';

export type AdminDeps = KeysAdminDeps &
  UsageAdminDeps &
  EventsAdminDeps &
  SettingsAdminDeps &
  RunsAdminDeps &
  StudioStateAdminDeps &
  StudioWorkAdminDeps & {
    boards: BoardsRepository;
    gate: StudioSessionGate;
    accounts: AccountsAdminDeps;
    prices: PricesRepository;
    store: ImagesAdminDeps['store'];
  };

/**
 * What a browser loads without fetch (an <img>, an EventSource, a download link) cannot carry
 * the studio header: these reads are admitted on the browser's own `Sec-Fetch-Site: same-origin`.
 */
const BROWSER_READS = [/^\/images\/[^/]+\/(file|thumb|mask)$/, /^\/events$/, /^\/usage\.csv$/];

/** /api/admin: the studio's own API (docs/admin-api.md), only ever with the studio session. */
export function adminRouter(deps: AdminDeps): Router {
  const router = Router();
  const strict = deps.gate.require();
  const reads = deps.gate.require({ sameOriginReads: true });
  router.use((req: Request, res: Response, next: NextFunction) =>
    BROWSER_READS.some((pattern) => pattern.test(req.path))
      ? reads(req, res, next)
      : strict(req, res, next),
  );
  router.use((_req, res, next) => {
    // Admin answers are about this user's data: no cache keeps them (image bytes say otherwise).
    res.setHeader('cache-control', 'no-store');
    next();
  });
  router.use(express.json({ limit: '1mb' }));

  router.get('/session', async (req, res) => {
    // The session's start holds its session budget: every tab of one login sums from it.
    const startedAt = await deps.gate.sessionStartedAt(req);
    res.json({ ok: true, startedAt } satisfies StudioSessionInfo);
  });
  router.use(keysAdmin(deps));
  router.use(accountsAdmin(deps.accounts));
  router.use(usageAdmin(deps));
  router.use(eventsAdmin(deps));
  router.use(settingsAdmin(deps));
  router.use(pricesAdmin(deps.prices));
  router.use(imagesAdmin({ images: deps.images, store: deps.store }));
  router.use(runsAdmin(deps));
  router.use(studioStateAdmin(deps));
  router.use(studioWorkAdmin(deps));
  router.use(boardsAdmin({ boards: deps.boards, images: deps.images, now: deps.now }));
  router.use(studioRunsList({ usage: deps.usage, images: deps.images, studioKey: deps.studioKey }));
  return router;
}
