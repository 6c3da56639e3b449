import { invalidApiKey } from './core/errors';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { Agent } from 'undici';
import { DEFAULT_TEXT_MODELS } from '../shared/models';
import { testAccountConnection } from './dispatch/connectionTest';
import { createAccountsRepository } from './accounts/repository';
import { signInIssuers } from './accounts/signInIssuers';
import type { GatewayConfig } from './config';
import { databasePath } from './core/dataDir';
import type { GatewayEventMap, GatewayEvents } from './core/events';
import { createUrlImages } from './gallery/urlImages';
import type { Gateway, GatewayDeps } from './gatewayApi';
import { serverAddress } from './http/address';
import { createApp } from './http/app';
import { mcpRoute } from './http/mcpRoute';
import { ResponseJobs } from './responseJobs/jobs';
import { createJobsRepository } from './responseJobs/repository';
import { createMcpGallery } from './mcp/gallery';
import { spendReport } from './mcp/spend';
import { createHttpServer } from './http/server';
import { createDrain } from './http/drain';
import { storageHealth } from './storage/health';
import { DEFAULT_CLIENT_TIMEOUTS } from './http/slowClients';
import { keyAuthenticator } from './keys/authenticator';
import { createKeysRepository, type ApiKeyRecord } from './keys/repository';
import { createUsageLedger, KeyLimiter, limitsOf } from './limits';
import { chargeLimitsOnUsage } from './limits/chargeOnUsage';
import { liveSettings } from './liveSettings';
import { makeDataDirPrivate } from './core/privateFiles';
import { shutdownSequence } from './shutdown';
import { openDatabase } from './storage/db';
import { openPricesRepository } from './storage/pricesRepository';
import { openSettingsRepository } from './storage/settingsRepository';
import { sqliteEngine } from './storage/sqliteEngine';
import { composeStudioSide } from './studioSide';
import { composeUpstreamSide } from './upstreamSide';
import { DEFAULT_SHUTDOWN_GRACE_MS, UPSTREAM_AGENT } from './core/tunables';
import { createInflight } from './usage/inflight';
import { createRejectedCounter } from './usage/rejected';
import { createUsageRepository } from './usage/repository';
import { openUsageWriter } from './usage/writer';

export type { GatewayConfig } from './config';
export type { Gateway, GatewayDeps } from './gatewayApi';
export { resetListenAddress, savedListenAddress, type ListenAddress } from './listenAddress';

/**
 * Composes the gateway: storage, the upstream side (upstreamSide.ts), usage and limits, the
 * studio's side (studioSide.ts), the HTTP app and its server, and the order it all stops in.
 */
export async function createGateway(
  config: GatewayConfig,
  deps: GatewayDeps = {},
): Promise<Gateway> {
  const log = config.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = deps.now ?? Date.now;
  const agent = deps.agent ?? new Agent(UPSTREAM_AGENT);
  makeDataDirPrivate(config.dataDir);
  const db = openDatabase(databasePath(config.dataDir));
  // The storage port over the same connection: the repositories converted to it so far (issue
  // 21) use `engine`, the others still the synchronous `db`.
  const engine = sqliteEngine(db);
  const keys = createKeysRepository(engine);
  const usage = createUsageRepository(engine);
  const prices = await openPricesRepository(engine);
  const accounts = createAccountsRepository(db);
  const settings = await openSettingsRepository(engine);
  const limiter = new KeyLimiter(createUsageLedger(db));
  const live = liveSettings(settings, config.allowedOrigins);
  const { simulator, secrets, dispatch } = await composeUpstreamSide(config, {
    accounts,
    live,
    secrets: deps.secrets,
    agent,
    now,
    log,
  });
  const { pool, scheduler } = dispatch;

  const urlImages = createUrlImages({ root: path.join(config.dataDir, 'url-images'), now });
  const events: GatewayEvents = new EventEmitter<GatewayEventMap>();
  const inflight = createInflight();
  const address = serverAddress(config.host, config.port);

  // Heard before the gallery: a request's reservation is charged before its images are written.
  chargeLimitsOnUsage(events, limiter, now);
  const rejected = createRejectedCounter(now);
  const keyLimitUse = (record: ApiKeyRecord) =>
    limiter.use({ id: record.id, limits: limitsOf(record) }, now());
  const studioSide = composeStudioSide({
    config,
    address,
    db,
    engine,
    keys,
    usage,
    rejected,
    prices,
    accounts,
    settings,
    secrets,
    events,
    loadOf: (id) => scheduler.loadOf(id),
    failingOf: (id) => pool.failing(id),
    testConnection: (id, baseUrl) =>
      testAccountConnection({ pool, dispatcher: agent, now }, id, baseUrl),
    keepApiImages: live.keepApiImages,
    whenIdle: () => inflight.whenIdle(),
    keyLimitUse,
    // The simulator serves while no stored account is enabled (pool.ts).
    simulatorOnly: () => simulator !== null && !accounts.list().some((a) => a.enabled),
    now,
    log,
  });
  const usageWriter = await openUsageWriter({
    repository: usage,
    priceFor: prices.get,
    events,
    rejected,
    now,
    log,
  });

  const authenticator = keyAuthenticator(keys, studioSide.studioKey, log);
  const mcp = mcpRoute({
    keys: authenticator,
    now,
    log,
    mcp: {
      baseUrl: address.url,
      events,
      gallery: createMcpGallery(
        studioSide.app.admin.images,
        studioSide.galleryStore.dir,
        config.dataDir,
      ),
      keepsApiImages: live.keepApiImages,
      spendOf: async (keyId) => {
        // The session's key may have been deleted since it opened the session.
        const record = await keys.get(keyId);
        if (!record) throw invalidApiKey('This key no longer exists.');
        const [spent] = await usage.totals({ apiKeyId: keyId });
        return spendReport(
          record,
          spent ?? { requests: 0, costMicros: 0, images: 0 },
          keyLimitUse(record),
        );
      },
      cancelRun: (keyId, runId, reason) => studioSide.runs.cancelForKey(keyId, runId, reason),
    },
  });

  // Background responses a stopped gateway left unfinished are failed now, saying why; their
  // usage rows were finished like any request's (pending rows become "interrupted").
  const responseJobs = new ResponseJobs(createJobsRepository(db), now);
  const abandonedJobs = responseJobs.failUnfinished();
  if (abandonedJobs > 0)
    log(`${abandonedJobs} background response(s) left unfinished by the last run: failed`);

  const clientTimeouts = { ...DEFAULT_CLIENT_TIMEOUTS, ...config.clientTimeouts };
  const drain = createDrain();
  const app = createApp({
    clientTimeouts,
    dispatch,
    imageSettings: live.imageSettings,
    injectImageTool: live.injectImageTool,
    keys: authenticator,
    limits: limiter,
    inflight,
    usage: usageWriter,
    textModels: () => DEFAULT_TEXT_MODELS,
    allowedHosts: address.hosts,
    ownOrigins: address.origins,
    allowedOrigins: live.allowedOrigins,
    snapshots: [settings, prices],
    describeUpstream: () => pool.describe(),
    url: address.url,
    staticDir: config.staticDir,
    urlImages,
    drain,
    storageHealth: storageHealth(db),
    mcp: mcp.router,
    responseJobs,
    now,
    log,
    ...studioSide.app,
  });
  const server = createHttpServer(app, clientTimeouts);
  const close = shutdownSequence({
    server,
    startDraining: () => drain.start(),
    drainNoticeMs: config.drainNoticeMs ?? 0,
    cancelSignIns: () => studioSide.logins.cancelAll(),
    closeMcpSessions: () => mcp.closeAll(),
    drainRequests: (graceMs) => inflight.drain(graceMs),
    drainGallery: () => studioSide.galleryStore.drain(),
    closeUrlImages: () => urlImages.close(),
    ownAgent: deps.agent ? null : agent,
    simulator,
    closeUsage: () => usageWriter.close(),
    db,
  });

  return {
    get url() {
      return address.url();
    },
    get port() {
      return address.port;
    },
    simulator,
    events,
    createStudioLogin: async () => `${address.url()}${await studioSide.loginPath()}`,
    signInUrl: (loginId) => studioSide.logins.authorizeUrl(loginId),
    signInIssuers: () => signInIssuers(accounts.list(), simulator?.url ?? null),
    servingAccounts: () => pool.list(),
    usageLog: () => ({ ...usageWriter.health.state, unwritten: usageWriter.unwritten }),
    listen: () => address.listen(server),
    close: (graceMs = DEFAULT_SHUTDOWN_GRACE_MS) => close(graceMs),
  };
}
