import { invalidApiKey } from './core/errors';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { DEFAULT_TEXT_MODELS } from '../shared/models';
import { testAccountConnection } from './dispatch/connectionTest';
import { signInIssuers } from './accounts/signInIssuers';
import type { GatewayConfig } from './config';
import type { GatewayEventMap, GatewayEvents } from './core/events';
import { createUrlImages } from './gallery/urlImages';
import { secretKeyFromEnv } from './secrets/secretKey';
import { sharedKey } from './secrets/sharedKeys';
import type { Gateway, GatewayDeps } from './gatewayApi';
import { serverAddress } from './http/address';
import { mcpRoute } from './http/mcpRoute';
import { relayLiveEvents } from './http/liveEvents';
import { ResponseJobs } from './responseJobs/jobs';
import { createMcpGallery } from './mcp/gallery';
import { spendReport } from './mcp/spend';
import { DEFAULT_CLIENT_TIMEOUTS } from './http/slowClients';
import { keyAuthenticator } from './keys/authenticator';
import { liveSettings } from './liveSettings';
import { startedParts } from './parts';
import { composeHttp } from './httpPart';
import { composeStorage } from './storagePart';
import { composeStudioSide } from './studioSide';
import { composeUpstreamSide } from './upstreamSide';
import { composeUsage } from './usagePart';
import { DEFAULT_SHUTDOWN_GRACE_MS } from './core/tunables';
import { tuneHeapGrowth } from './core/heapGrowth';

export type { GatewayConfig } from './config';
export type { Gateway, GatewayDeps } from './gatewayApi';
export { resetListenAddress, savedListenAddress, type ListenAddress } from './listenAddress';

/**
 * Composes the gateway by part: storage, the upstream side (upstreamSide.ts), usage and limits,
 * the signed-URL images, the studio's side (studioSide.ts), MCP, and the HTTP app and its server.
 * Each part returns its piece and a stop; the gateway stops them in the reverse of their start
 * order (parts.ts), and stops what started if a later part fails to.
 */
export async function createGateway(
  config: GatewayConfig,
  deps: GatewayDeps = {},
): Promise<Gateway> {
  const log = config.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = deps.now ?? Date.now;
  // The gateway owns its process (the CLI, a team server, npm start's headless studio).
  tuneHeapGrowth();
  const parts = startedParts();
  return parts.orUndo(async () => {
    const storage = parts.started(await composeStorage(config, log));
    const { keys, prices, accounts, settings } = storage;
    const live = liveSettings(settings, config.allowedOrigins);
    const upstream = parts.started(
      await composeUpstreamSide(config, {
        accounts,
        slotLeases: storage.slotLeases,
        refreshLock: storage.refreshLock,
        live,
        secrets: deps.secrets,
        engine: storage.engine,
        agent: deps.agent,
        now,
        log,
      }),
    );
    const { simulator, dispatch } = upstream;
    const { pool, scheduler } = dispatch;

    const events: GatewayEvents = new EventEmitter<GatewayEventMap>();
    // The studio's event stream shows every instance's requests (PostgreSQL: through NOTIFY).
    const liveEvents = relayLiveEvents({ events, engine: storage.engine, log });
    parts.started({ stop: () => liveEvents.close() });
    const usage = parts.started(
      await composeUsage({
        usage: storage.usage,
        usageLedger: storage.usageLedger,
        instance: storage.instance,
        prices,
        events,
        now,
        log,
      }),
    );
    const urlImages = createUrlImages({
      root: path.join(config.dataDir, 'url-images'),
      now,
      // A team gateway's instances answer each other's URLs; the desktop's die with its run.
      sharedKey:
        storage.engine.kind === 'postgres'
          ? // Sealed with the database secret key when one is given, as the upstream secrets are.
            await sharedKey(storage.engine, 'url_images', now(), secretKeyFromEnv(process.env))
          : undefined,
    });
    parts.started({ stop: () => urlImages.close() });
    const address = serverAddress(config.host, config.port);
    // Background responses and studio runs a stopped gateway left unfinished are failed now,
    // saying why; their usage rows were finished like any request's (pending rows become
    // "interrupted"). Its stop waits for the jobs' last writes, before the database closes.
    const responseJobs = new ResponseJobs(storage.jobs, now, log);
    parts.started({ stop: () => responseJobs.close() });
    const abandoned = await responseJobs.failUnfinished();
    if (abandoned.responses > 0)
      log(`${abandoned.responses} background response(s) left unfinished by the last run: failed`);
    if (abandoned.studioRuns > 0)
      log(`${abandoned.studioRuns} studio run(s) left unfinished by the last run: failed`);
    const studioSide = parts.started(
      composeStudioSide({
        jobs: responseJobs,
        config,
        address,
        engine: storage.engine,
        keys,
        usage: storage.usage,
        rejected: usage.rejected,
        prices,
        accounts,
        settings,
        secrets: upstream.secrets,
        events,
        live: liveEvents.live,
        loadOf: (id) => scheduler.loadOf(id),
        failingOf: (id) => pool.failing(id),
        testConnection: (id, baseUrl) =>
          testAccountConnection({ pool, dispatcher: upstream.agent, now }, id, baseUrl),
        keepApiImages: live.keepApiImages,
        // The tracker's own function (it uses no `this`): no closure of the root runs per request.
        whenIdle: usage.inflight.whenIdle,
        keyLimitUse: usage.keyLimitUse,
        // The simulator serves while no stored account is enabled (pool.ts).
        simulatorOnly: () => simulator !== null && !accounts.cached().some((a) => a.enabled),
        now,
        log,
      }),
    );

    const authenticator = keyAuthenticator(keys, studioSide.studioKey, log);
    const mcp = mcpRoute({
      keys: authenticator,
      now,
      log,
      mcp: {
        baseUrl: address.url,
        events,
        gallery: createMcpGallery(
          studioSide.studio.admin.images,
          studioSide.galleryStore.dir,
          config.dataDir,
        ),
        keepsApiImages: live.keepApiImages,
        spendOf: async (keyId) => {
          // The session's key may have been deleted since it opened the session.
          const record = await keys.get(keyId);
          if (!record) throw invalidApiKey('This key no longer exists.');
          const [spent] = await storage.usage.totals({ apiKeyId: keyId });
          return spendReport(
            record,
            spent ?? { requests: 0, costMicros: 0, images: 0 },
            await usage.keyLimitUse(record),
          );
        },
        cancelRun: (keyId, runId, reason) => studioSide.runs.cancelForKey(keyId, runId, reason),
      },
    });
    // The MCP sessions' open streams: their tool calls' /v1 requests drained like any before.
    parts.started({ stop: () => mcp.closeAll() });

    const imageService = {
      dispatch,
      settings: live.imageSettings,
      limits: usage.limiter,
      now,
      gallery: studioSide.gallery,
    };
    const http = parts.started(
      composeHttp({
        app: {
          guards: {
            allowedHosts: address.hosts,
            ownOrigins: address.origins,
            allowedOrigins: live.allowedOrigins,
            snapshots: [settings, prices, accounts],
            clientTimeouts: { ...DEFAULT_CLIENT_TIMEOUTS, ...config.clientTimeouts },
          },
          v1: {
            inflight: usage.inflight,
            usage: usage.writer,
            keys: authenticator,
            limits: usage.limiter,
            now,
          },
          images: { ...imageService, urlImages, jobs: responseJobs },
          responses: {
            ...imageService,
            textModels: () => DEFAULT_TEXT_MODELS,
            injectImageTool: live.injectImageTool,
            jobs: responseJobs,
          },
          studio: studioSide.studio,
          health: {
            storage: storage.health,
            describeUpstream: () => pool.describe(),
            url: address.url,
          },
          mcp: mcp.router,
          staticDir: config.staticDir,
          log,
        },
        listen: (server) => address.listen(server),
        drainNoticeMs: config.drainNoticeMs ?? 0,
      }),
    );

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
      signInIssuers: () => signInIssuers(accounts.cached(), simulator?.url ?? null),
      servingAccounts: () => pool.list(),
      usageLog: () => ({ ...usage.writer.health.state, unwritten: usage.writer.unwritten }),
      listen: () => http.listen(),
      close: (graceMs = DEFAULT_SHUTDOWN_GRACE_MS) => parts.stop(graceMs),
    };
  });
}
