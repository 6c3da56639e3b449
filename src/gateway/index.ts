import { EventEmitter } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { DEFAULT_TEXT_MODELS } from '../shared/models';
import { startSimulator, type Simulator } from '../simulator';
import type { GatewayEventMap, GatewayEvents } from './events';
import { composeStudio } from './studio';
import type { GatewayConfig } from './config';
import { databasePath } from './dataDir';
import { makeDataDirPrivate } from './privateFiles';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAccountsRepository } from './accounts/repository';
import { signInIssuers } from './accounts/signInIssuers';
import { BUILTIN, type AccountRecord } from './accounts/types';
import type { Dispatcher } from './dispatch/dispatchCall';
import { DEFAULT_COOLDOWNS } from './dispatch/cooldownPolicy';
import { createUpstreamPool } from './dispatch/pool';
import { DEFAULT_RETRIES, RetryBudget } from './dispatch/retryPolicy';
import { Scheduler } from './dispatch/scheduler';
import { API_KEY_MAX_PIXELS } from './dispatch/weights';
import { createTokenManager } from './oauth';
import { openSecretStore, readAccountSecret } from './secrets';
import { createSubscriptionUpstream } from './upstream/subscription';
import type { SecretStore } from './secrets/types';
import { SETTINGS } from './settings';
import { createSettingsRepository } from './storage/settingsRepository';
import { UpstreamError } from './upstream/errors';
import type { ImageUpstream } from './upstream/types';
import { createApp } from './http/app';
import { createUrlImages } from './images/urlImages';
import { allowedHosts } from './http/hostGuard';
import {
  DEFAULT_CLIENT_TIMEOUTS,
  headersCheckIntervalMs,
  type ClientTimeouts,
} from './http/slowClients';
import { openDatabase } from './storage/db';
import { createKeysRepository, type ApiKeyRecord } from './storage/keysRepository';
import { createUsageLedger, KeyLimiter, limitsOf } from './limits';
import { createPricesRepository } from './storage/pricesRepository';
import { createApiKeyUpstream } from './upstream/apiKeyImages';
import { createInflight } from './usage/inflight';
import { createRejectedCounter } from './usage/rejected';
import { createUsageRepository } from './usage/repository';
import { createUsageWriter } from './usage/writer';
import { VERSION } from './version';

export type { GatewayConfig } from './config';
export { resetListenAddress, savedListenAddress, type ListenAddress } from './listenAddress';

export interface Gateway {
  /** http://HOST:PORT once listening. */
  readonly url: string;
  readonly port: number;
  listen(): Promise<string>;
  /** Stops accepting, lets in-flight requests finish (or cancels and records them), then closes. */
  close(graceMs?: number): Promise<void>;
  /** The built-in simulator when it serves as the upstream (tests script faults through it). */
  readonly simulator: Simulator | null;
  /**
   * Emits `usage` with each request id once its usage record is written (the live request log),
   * and `image` once a kept image is in the gallery.
   */
  readonly events: GatewayEvents;
  /**
   * A fresh one-time studio login URL (`/login?token=...`, 10 minutes, single use). `atelier
   * serve` prints one; the Electron window loads one.
   */
  createStudioLogin(): string;
  /**
   * The authorize URL of an OAuth sign-in the studio started and that still waits for the
   * browser; null for an unknown, finished or failed one. The desktop shell opens only these.
   */
  signInUrl(loginId: string): string | null;
  /** The origins a sign-in may be opened at (accounts/signInIssuers.ts). */
  signInIssuers(): string[];
  /** The accounts dispatch uses now (the implicit one while none is configured). */
  servingAccounts(): AccountRecord[];
}

const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;

/** The account that serves while none is configured: the simulator, or a forced upstream URL. */
function implicitAccount(config: GatewayConfig, simulator: Simulator | null): AccountRecord | null {
  const common = {
    tier: 'api',
    groupName: '*',
    capacity: 16,
    enabled: true,
    modelMap: {},
    maxPixels: API_KEY_MAX_PIXELS,
    issuer: null,
    bridgeModel: null,
    upstreamAccountId: null,
    secretName: null,
    disabledReason: null,
    cooldownUntil: null,
    cooldownReason: null,
    cooldownKind: null,
    createdAt: 0,
  };
  if (config.upstreamBaseUrl) {
    return {
      ...common,
      id: 'upstream',
      name: new URL(config.upstreamBaseUrl).host,
      kind: 'api_key',
      baseUrl: config.upstreamBaseUrl,
    };
  }
  return simulator
    ? { ...common, id: 'simulator', name: 'Offline simulator', kind: 'simulator', baseUrl: BUILTIN }
    : null;
}

export async function createGateway(config: GatewayConfig): Promise<Gateway> {
  const log = config.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = () => Date.now();
  makeDataDirPrivate(config.dataDir);
  const db = openDatabase(databasePath(config.dataDir));
  const keys = createKeysRepository(db);
  const usage = createUsageRepository(db);
  const prices = createPricesRepository(db);
  const accounts = createAccountsRepository(db);
  const settings = createSettingsRepository(db);
  const limiter = new KeyLimiter(createUsageLedger(db), (model) => prices.get(model));
  // One connection pool for all upstream calls. Timeouts are per request (they depend on size),
  // and the connection itself never times a long image out.
  const dispatcher = new Agent({
    connections: 64,
    keepAliveTimeout: 30_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  // The built-in simulator runs whenever no external upstream URL is forced: it serves while no
  // account is configured, and backs accounts of kind 'simulator'.
  const simulator = config.upstreamBaseUrl
    ? null
    : await startSimulator({
        speed: config.simulatorSpeed ?? 1,
        controlToken: config.simulatorControlToken,
      });
  const fallback = implicitAccount(config, simulator);
  let secrets: Promise<SecretStore> | null = null;
  const secretStore = () =>
    (secrets ??= config.secrets
      ? Promise.resolve(config.secrets)
      : openSecretStore({ dataDir: config.dataDir, env: process.env }));

  const makeUpstream = async (account: AccountRecord): Promise<ImageUpstream> => {
    const base = {
      id: account.id,
      name: account.name,
      kind: account.kind,
      modelMap: account.modelMap,
    };
    if (account.kind === 'simulator' || account.baseUrl === BUILTIN) {
      if (!simulator)
        throw new Error(
          'the built-in simulator is not running (an external upstream URL was forced)',
        );
      // Each simulated account has its own key, so the simulator can tell accounts apart.
      return createApiKeyUpstream(
        { ...base, baseUrl: `${simulator.url}/v1`, credential: `sim-${account.id}` },
        { dispatcher, now },
      );
    }
    if (account.id === fallback?.id) {
      return createApiKeyUpstream(
        { ...base, baseUrl: account.baseUrl, credential: config.upstreamApiKey ?? '' },
        { dispatcher, now },
      );
    }
    const secret = account.secretName
      ? await readAccountSecret(await secretStore(), account.secretName)
      : null;
    if (account.kind === 'api_key') {
      if (secret?.type !== 'api_key')
        throw new UpstreamError({
          kind: 'unauthorized',
          message: 'no API key stored in the keychain for this account',
        });
      return createApiKeyUpstream(
        { ...base, baseUrl: account.baseUrl, credential: secret.apiKey },
        { dispatcher, now },
      );
    }
    if (!account.upstreamAccountId) {
      throw new UpstreamError({
        kind: 'unauthorized',
        message: 'the account has no chatgpt-account-id: sign in again with atelier accounts login',
      });
    }
    const tokens = createTokenManager({
      account: {
        id: account.id,
        name: account.name,
        issuer: account.issuer,
        secretName: account.secretName,
      },
      secrets: await secretStore(),
      now,
      log,
      // A refresh token that expired or was revoked needs a person: say what to do.
      onPermanentFailure: (reason) =>
        accounts.update(account.id, {
          disabledReason: `sign-in no longer valid (${reason}); run: atelier accounts login --name ${account.name}`,
        }),
    });
    return createSubscriptionUpstream(
      {
        ...base,
        baseUrl: account.baseUrl,
        credential: '',
        upstreamAccountId: account.upstreamAccountId,
        bridgeModel: account.bridgeModel ?? settings.get(SETTINGS.bridgeModel),
      },
      { dispatcher, now, tokens },
    );
  };

  const pool = createUpstreamPool({
    accounts,
    fallback,
    makeUpstream,
    cooldowns: { ...DEFAULT_COOLDOWNS, ...config.cooldowns },
    now,
    log,
  });
  const scheduler = new Scheduler({ maxWaitMs: 30_000, maxQueue: 256, headPriorityMs: 2_000 });
  const dispatch: Dispatcher = {
    pool,
    scheduler,
    retries: DEFAULT_RETRIES,
    budget: new RetryBudget(DEFAULT_RETRIES, now),
    now,
    sleep: (ms, signal) => sleep(ms, undefined, { signal }),
    timeouts: () => ({
      normalMs: settings.get(SETTINGS.timeoutNormalMs),
      largeMs: settings.get(SETTINGS.timeoutLargeMs),
    }),
  };

  const urlImages = createUrlImages({ dir: path.join(config.dataDir, 'url-images'), now });
  const events: GatewayEvents = new EventEmitter<GatewayEventMap>();
  const inflight = createInflight();
  let port = config.port;
  let hosts = allowedHosts(config.host, port);
  let origins = new Set<string>();
  const urlFor = (p: number) =>
    `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${p}`;

  const rejected = createRejectedCounter(now);
  const studio = composeStudio({
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
    whenIdle: () => inflight.whenIdle(),
    keyLimitUse: (record) => limiter.use({ id: record.id, limits: limitsOf(record) }, now()),
    simulatorOnly: () => simulator !== null && accounts.list().length === 0,
    ownOrigins: () => origins,
    server: () => ({ address: urlFor(port), host: config.host, port, dataDir: config.dataDir }),
    oauthCallbackPort: config.oauthCallbackPort,
    now,
    log,
  });

  const usageWriter = createUsageWriter({
    repository: usage,
    priceFor: (model) => prices.get(model),
    events,
    rejected,
    onWritten: (requestId, cost, recorded) => {
      // The row now holds what the request's limits reservation held (or it is lost anyway).
      for (const alert of limiter.settle(requestId, recorded ? cost : null, now()))
        events.emit('budget', alert);
      studio.images.settle(requestId, cost);
    },
    now,
    log,
  });
  const interrupted = usageWriter.recordInterrupted();
  if (interrupted > 0)
    log(`recorded ${interrupted} request(s) interrupted when the gateway last stopped`);

  const clientTimeouts: ClientTimeouts = { ...DEFAULT_CLIENT_TIMEOUTS, ...config.clientTimeouts };
  const app = createApp({
    clientTimeouts: () => clientTimeouts,
    dispatcher: dispatch,
    policy: {
      strictDelivery: () => settings.get(SETTINGS.strictDelivery),
      ladderForAll: () => settings.get(SETTINGS.fallbackLadder),
      contentFilter: () => settings.get(SETTINGS.contentFilter),
    },
    injectImageTool: () => settings.get(SETTINGS.injectImageTool),
    keys: {
      authenticate: (presented) => authenticated(keys.authenticate(presented)),
      touch: (id, at) => keys.touch(id, at),
      studioKey: () => authenticated(studio.studioKey.get()),
    },
    limits: limiter,
    inflight,
    usage: usageWriter,
    textModels: () => DEFAULT_TEXT_MODELS,
    allowedHosts: () => hosts,
    ownOrigins: () => origins,
    allowedOrigins: () => [
      ...(config.allowedOrigins ?? []),
      ...settings.get(SETTINGS.allowedOrigins),
    ],
    status: () => ({
      name: 'Atelier',
      version: VERSION,
      upstream: pool.describe(),
      address: urlFor(port),
    }),
    staticDir: config.staticDir,
    urlImages,
    now,
    log,
    ...studio.app,
  });

  const server = http.createServer(
    { connectionsCheckingInterval: headersCheckIntervalMs(clientTimeouts) },
    app,
  );
  // Node's default 5-minute request timeout would cut a legitimate 4K generation (spec 7.1):
  // slow senders are bounded per phase instead (http/slowClients.ts).
  server.requestTimeout = 0;
  server.timeout = 0;
  server.headersTimeout = clientTimeouts.headersMs;
  server.keepAliveTimeout = clientTimeouts.keepAliveMs;

  let closing: Promise<void> | null = null;
  const gateway: Gateway = {
    get url() {
      return urlFor(port);
    },
    get port() {
      return port;
    },
    simulator,
    events,
    createStudioLogin: () => `${urlFor(port)}${studio.loginPath()}`,
    signInUrl: (loginId) => studio.logins.authorizeUrl(loginId),
    signInIssuers: () => signInIssuers(accounts.list(), simulator?.url ?? null),
    servingAccounts: () => pool.list(),
    listen: () =>
      new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          port = (server.address() as AddressInfo).port;
          hosts = allowedHosts(config.host, port);
          origins = new Set([...hosts].map((h) => `http://${h}`));
          resolve(urlFor(port));
        });
      }),
    close(graceMs = DEFAULT_SHUTDOWN_GRACE_MS) {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        studio.logins.cancelAll();
        await inflight.drain(graceMs);
        server.closeAllConnections();
        await stopped;
        // Every request has settled, so every image it kept is queued: let them reach the disk.
        await studio.images.drain();
        await urlImages.close();
        await dispatcher.close();
        if (simulator) await simulator.close();
        usageWriter.close();
        db.close();
      })();
      return closing;
    },
  };
  return gateway;
}

/** What the request path needs of a key (its limits included). */
function authenticated(record: ApiKeyRecord | null) {
  if (!record) return null;
  const { id, group, fallbackLadder, concurrencyLimit } = record;
  return { id, group, fallbackLadder, concurrencyLimit, limits: limitsOf(record) };
}
