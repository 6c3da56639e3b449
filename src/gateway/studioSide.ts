import type { ResponseJobs } from './responseJobs/jobs';
import path from 'node:path';
import { createLoginFlows, type LoginFlows } from './accounts/loginFlows';
import type { AccountsRepository } from './accounts/repository';
import type { GatewayConfig } from './config';
import type { GatewayEvents } from './core/events';
import { galleryPort, type GalleryPort } from './gallery/port';
import type { LiveEvents } from './http/liveEvents';
import type { ServerAddress } from './http/address';
import type { StudioArea } from './http/app';
import type { AccountsAdminDeps } from './http/admin/accounts';
import { createStudioStateRepository } from './storage/studioStateRepository';
import { createBoardsRepository } from './gallery/boardsRepository';
import type { KeysAdminDeps } from './http/admin/keys';
import { createStudioSessions, studioSessionGate } from './http/studioSession';
import { createStudioRuns, type StudioRuns } from './http/studioRuns';
import { createImageStore, type ImageStore } from './gallery/store';
import { createWorkFiles } from './gallery/workFiles';
import { MAX_STUDIO_WORK_BYTES, type ServerInfo } from '../shared/admin';
import { studioKey, type StudioKey } from './keys/studioKey';
import type { SecretStore } from './secrets/types';
import type { SqlEngine } from './storage/engine';
import { createImagesRepository } from './gallery/repository';
import type { KeysRepository } from './keys/repository';
import type { PricesRepository } from './storage/pricesRepository';
import type { SettingsRepository } from './storage/settingsRepository';
import type { RejectedCounter } from './usage/rejected';
import type { UsageRepository } from './usage/repository';

export interface StudioSide {
  /** What createApp needs for the studio: its session, its runs, the admin API. */
  studio: StudioArea;
  /** The gallery's port: the one way the request path keeps images (imageService/types.ts). */
  gallery: GalleryPort;
  /** The built-in key the studio's /v1 calls are recorded under. */
  studioKey: StudioKey;
  /** A fresh one-time login link path (`/login?token=...`). */
  loginPath(): Promise<string>;
  /** The gallery's store (drained on close). */
  galleryStore: ImageStore;
  logins: LoginFlows;
  /** The runs in flight that can be cancelled: the studio's, and keys' for the MCP tools. */
  runs: StudioRuns;
  /** Cancels the sign-ins still waiting for the browser, then lets the gallery's writes land. */
  stop(): Promise<void>;
}

/**
 * The studio's side of the gateway, composed in one place: sessions, the built-in Studio key,
 * the gallery's store, OAuth sign-ins started from the studio, and the admin API's dependencies.
 */
export function composeStudioSide(deps: {
  /** The storage port (the same database): the repositories converted to it. */
  engine: SqlEngine;
  /** The studio's runs run as jobs, so a closed page can find them again (responseJobs/). */
  jobs: ResponseJobs;
  config: Pick<GatewayConfig, 'dataDir' | 'host' | 'oauthCallbackPort'>;
  /** Where the gateway listens (its URL, port and own origins follow the bound port). */
  address: Pick<ServerAddress, 'url' | 'port' | 'origins'>;
  keys: KeysRepository;
  usage: UsageRepository;
  rejected: RejectedCounter;
  prices: PricesRepository;
  accounts: AccountsRepository;
  settings: SettingsRepository;
  secrets: () => Promise<SecretStore>;
  events: GatewayEvents;
  /** What the studio's event stream shows: every instance's events (http/liveEvents.ts). */
  live: LiveEvents;
  loadOf: (accountId: string) => number;
  /** Dispatch's view of an account whose latest calls did not reach it. */
  failingOf: AccountsAdminDeps['failingOf'];
  testConnection: AccountsAdminDeps['testConnection'];
  /** The live setting (liveSettings.ts): whether the gallery keeps API callers' images. */
  keepApiImages: () => boolean;
  simulatorOnly: () => boolean;
  /** Resolves once no request is in flight (the gallery defers its heavy work until then). */
  whenIdle?: () => Promise<void>;
  /** A key's use against its limits (limits/limiter.ts), for the keys page. */
  keyLimitUse: KeysAdminDeps['keyLimitUse'];
  now: () => number;
  log: (line: string) => void;
}): StudioSide {
  const { dataDir, host } = deps.config;
  const server = (): ServerInfo => ({
    address: deps.address.url(),
    host,
    port: deps.address.port,
    dataDir,
  });
  const sessions = createStudioSessions(deps.engine, deps.now);
  const sessionGate = studioSessionGate(sessions, deps.address.origins);
  const builtInKey = studioKey(deps.keys, deps.settings);
  const imagesRepo = createImagesRepository(deps.engine);
  const images = createImageStore({
    dir: path.join(dataDir, 'images'),
    repo: imagesRepo,
    priceOf: deps.prices.get,
    now: deps.now,
    log: deps.log,
    events: deps.events,
    whenIdle: deps.whenIdle,
    usageCostOf: async (requestId) => (await deps.usage.get(requestId))?.costMicros ?? null,
    // For the crash test (test/gateway/galleryCrash.test.ts) only: images wait in the queue.
    holdWrites:
      process.env.ATELIER_TEST_HOLD_GALLERY_WRITES === '1'
        ? new Promise<void>(() => undefined)
        : undefined,
  });
  // What a stopped run promised to keep (its journals), now that its usage records are written.
  images.recover().catch((error: unknown) => deps.log(`gallery recovery: ${String(error)}`));
  // The gallery writes what it held for a request once the request's record is written. (What
  // runs per request is handed on as it is, so no request calls back into this file.)
  deps.events.on('settled', images.confirm);
  const runs = createStudioRuns();
  const ctx = { accounts: deps.accounts, secrets: deps.secrets, dataDir };
  const logins = createLoginFlows({
    ctx,
    callbackPort: deps.config.oauthCallbackPort,
    now: deps.now,
    log: deps.log,
  });

  return {
    gallery: galleryPort(images, imagesRepo.exists, deps.keepApiImages, deps.log),
    studio: {
      session: sessionGate,
      runs,
      admin: {
        runs,
        jobs: deps.jobs,
        keys: deps.keys,
        usage: deps.usage,
        rejected: deps.rejected,
        studioKey: builtInKey,
        keyLimitUse: deps.keyLimitUse,
        live: deps.live,
        images: imagesRepo,
        store: images,
        settings: deps.settings,
        server,
        prices: deps.prices,
        studioState: createStudioStateRepository(deps.engine),
        workFiles: createWorkFiles(path.join(dataDir, 'studio-work'), MAX_STUDIO_WORK_BYTES),
        boards: createBoardsRepository(deps.engine),
        now: deps.now,
        accounts: {
          ctx,
          logins,
          loadOf: deps.loadOf,
          failingOf: deps.failingOf,
          testConnection: deps.testConnection,
          simulatorOnly: deps.simulatorOnly,
          now: deps.now,
          log: deps.log,
        },
      },
    },
    studioKey: builtInKey,
    loginPath: async () => `/login?token=${await sessions.issueLoginToken()}`,
    galleryStore: images,
    runs,
    logins,
    stop: async () => {
      logins.cancelAll();
      // Every request is over, so every image it kept is queued: let them reach the disk.
      await images.drain();
    },
  };
}
