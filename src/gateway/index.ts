import { EventEmitter } from 'node:events';
import path from 'node:path';
import { Agent } from 'undici';
import { DEFAULT_TEXT_MODELS } from '../shared/models';
import { startSimulator } from '../simulator';
import { implicitAccount } from './accounts/implicitAccount';
import { createAccountsRepository } from './accounts/repository';
import { signInIssuers } from './accounts/signInIssuers';
import type { GatewayConfig } from './config';
import { databasePath } from './dataDir';
import { DEFAULT_COOLDOWNS } from './dispatch/cooldownPolicy';
import { composeDispatch } from './dispatch/compose';
import type { GatewayEventMap, GatewayEvents } from './events';
import type { Gateway } from './gatewayApi';
import { createApp } from './http/app';
import { serverAddress } from './http/address';
import { createHttpServer } from './http/server';
import { DEFAULT_CLIENT_TIMEOUTS, type ClientTimeouts } from './http/slowClients';
import { createUrlImages } from './gallery/urlImages';
import { keyAuthenticator } from './keys/authenticator';
import { createUsageLedger, KeyLimiter, limitsOf } from './limits';
import { chargeLimitsOnUsage } from './limits/chargeOnUsage';
import { liveSettings } from './liveSettings';
import { makeDataDirPrivate } from './privateFiles';
import { openSecretStore } from './secrets';
import type { SecretStore } from './secrets/types';
import { openDatabase } from './storage/db';
import { createKeysRepository } from './keys/repository';
import { createPricesRepository } from './storage/pricesRepository';
import { createSettingsRepository } from './storage/settingsRepository';
import { composeStudioSide } from './studioSide';
import { DEFAULT_SHUTDOWN_GRACE_MS, UPSTREAM_AGENT } from './tunables';
import { upstreamFactory } from './upstream/factory';
import { createInflight } from './usage/inflight';
import { createRejectedCounter } from './usage/rejected';
import { createUsageRepository } from './usage/repository';
import { createUsageWriter } from './usage/writer';
import { VERSION } from './version';

export type { GatewayConfig } from './config';
export type { Gateway } from './gatewayApi';
export { resetListenAddress, savedListenAddress, type ListenAddress } from './listenAddress';

/** What a gateway is given rather than makes: its clock, upstream connection pool, secret store. */
export interface GatewayDeps {
  now?: () => number;
  /** The upstream connection pool (closed by its owner when given; else made and closed here). */
  agent?: Agent;
  /** The secret store; by default `config.secrets`, else the OS keychain opened on first use. */
  secrets?: SecretStore;
}

/** Composes the gateway: storage, dispatch, usage, the studio's side (studioSide.ts) and the HTTP app, then serves. */
export async function createGateway(
  config: GatewayConfig,
  deps: GatewayDeps = {},
): Promise<Gateway> {
  const log = config.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = deps.now ?? Date.now;
  const agent = deps.agent ?? new Agent(UPSTREAM_AGENT);
  makeDataDirPrivate(config.dataDir);
  const db = openDatabase(databasePath(config.dataDir));
  const keys = createKeysRepository(db);
  const usage = createUsageRepository(db);
  const prices = createPricesRepository(db);
  const accounts = createAccountsRepository(db);
  const settings = createSettingsRepository(db);
  const limiter = new KeyLimiter(createUsageLedger(db), prices.get);
  const live = liveSettings(settings, config.allowedOrigins);
  // The built-in simulator runs whenever no external upstream URL is forced: it serves while no
  // account is configured, and backs accounts of kind 'simulator'.
  const simulator = config.upstreamBaseUrl
    ? null
    : await startSimulator({
        speed: config.simulatorSpeed ?? 1,
        controlToken: config.simulatorControlToken,
      });
  const fallback = implicitAccount(config, simulator);
  const given = deps.secrets ?? config.secrets;
  let secrets: Promise<SecretStore> | null = null;
  const secretStore = () =>
    (secrets ??= given
      ? Promise.resolve(given)
      : openSecretStore({ dataDir: config.dataDir, env: process.env }));

  const dispatch = composeDispatch({
    accounts,
    fallback,
    makeUpstream: upstreamFactory({
      simulatorUrl: simulator?.url ?? null,
      fallback: fallback && { id: fallback.id, apiKey: config.upstreamApiKey ?? '' },
      secrets: secretStore,
      bridgeModel: live.bridgeModel,
      disable: (id, disabledReason) => accounts.update(id, { disabledReason }),
      agent,
      now,
      log,
    }),
    cooldowns: { ...DEFAULT_COOLDOWNS, ...config.cooldowns },
    timeouts: live.upstreamTimeouts,
    now,
    log,
  });
  const { pool, scheduler } = dispatch;

  const urlImages = createUrlImages({ dir: path.join(config.dataDir, 'url-images'), now });
  const events: GatewayEvents = new EventEmitter<GatewayEventMap>();
  const inflight = createInflight();
  const address = serverAddress(config.host, config.port);

  // Heard before the gallery: a request's reservation is charged before its images are written.
  chargeLimitsOnUsage(events, limiter, now);
  const rejected = createRejectedCounter(now);
  const studioSide = composeStudioSide({
    db,
    dataDir: config.dataDir,
    keys,
    usage,
    rejected,
    prices,
    accounts,
    settings,
    secrets: secretStore,
    events,
    loadOf: (id) => scheduler.loadOf(id),
    keepApiImages: live.keepApiImages,
    whenIdle: () => inflight.whenIdle(),
    keyLimitUse: (record) => limiter.use({ id: record.id, limits: limitsOf(record) }, now()),
    simulatorOnly: () => simulator !== null && accounts.list().length === 0,
    ownOrigins: address.origins,
    server: () => ({
      address: address.url(),
      host: config.host,
      port: address.port,
      dataDir: config.dataDir,
    }),
    oauthCallbackPort: config.oauthCallbackPort,
    now,
    log,
  });

  const usageWriter = createUsageWriter({
    repository: usage,
    priceFor: prices.get,
    events,
    rejected,
    now,
    log,
  });
  const interrupted = usageWriter.recordInterrupted();
  if (interrupted > 0)
    log(`recorded ${interrupted} request(s) interrupted when the gateway last stopped`);

  const clientTimeouts: ClientTimeouts = { ...DEFAULT_CLIENT_TIMEOUTS, ...config.clientTimeouts };
  const app = createApp({
    clientTimeouts,
    dispatch,
    imageSettings: live.imageSettings,
    injectImageTool: live.injectImageTool,
    keys: keyAuthenticator(keys, studioSide.studioKey),
    limits: limiter,
    inflight,
    usage: usageWriter,
    textModels: () => DEFAULT_TEXT_MODELS,
    allowedHosts: address.hosts,
    ownOrigins: address.origins,
    allowedOrigins: live.allowedOrigins,
    status: () => ({
      name: 'Atelier',
      version: VERSION,
      upstream: pool.describe(),
      address: address.url(),
    }),
    staticDir: config.staticDir,
    urlImages,
    now,
    log,
    ...studioSide.app,
  });
  const server = createHttpServer(app, clientTimeouts);

  let closing: Promise<void> | null = null;
  return {
    get url() {
      return address.url();
    },
    get port() {
      return address.port;
    },
    simulator,
    events,
    createStudioLogin: () => `${address.url()}${studioSide.loginPath()}`,
    signInUrl: (loginId) => studioSide.logins.authorizeUrl(loginId),
    signInIssuers: () => signInIssuers(accounts.list(), simulator?.url ?? null),
    servingAccounts: () => pool.list(),
    listen: () => address.listen(server),
    close(graceMs = DEFAULT_SHUTDOWN_GRACE_MS) {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        studioSide.logins.cancelAll();
        await inflight.drain(graceMs);
        server.closeAllConnections();
        await stopped;
        // Every request is over, so every image it kept is queued: let them reach the disk.
        await studioSide.galleryStore.drain();
        await urlImages.close();
        if (!deps.agent) await agent.close();
        if (simulator) await simulator.close();
        usageWriter.close();
        db.close();
      })();
      return closing;
    },
  };
}
