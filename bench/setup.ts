import fs from 'node:fs';
import type { AccountSecret } from '../src/gateway/secrets/types';
import { openAccountsRepository, type NewAccount } from '../src/gateway/accounts/repository';
import { databasePath } from '../src/gateway/core/dataDir';
import { API_KEY_MAX_PIXELS } from '../src/gateway/accounts/types';
import { openDatabase } from '../src/gateway/storage/db';
import type { SqlEngine } from '../src/gateway/storage/engine';
import { openPostgresDatabase } from '../src/gateway/storage/postgresEngine';
import { createKeysRepository } from '../src/gateway/keys/repository';
import { openSettingsRepository } from '../src/gateway/storage/settingsRepository';
import { sqliteEngine } from '../src/gateway/storage/sqliteEngine';
import { SETTINGS } from '../src/gateway/storage/settings';
import { freshBenchDir } from './dataRoot';
import type { BenchTokens, GatewayChildConfig, SimulatorReady } from './protocol';

/** The three upstream transports, one account (and one group, one key) each. */
export type Transport = 'apiKey' | 'native' | 'bridge';
export const TRANSPORTS: readonly Transport[] = ['apiKey', 'native', 'bridge'];
export const TRANSPORT_LABEL: Record<Transport, string> = {
  apiKey: 'API-key Images API',
  native: 'native channel',
  bridge: 'Responses bridge',
};

/** What the simulators accept as an API key: any non-empty bearer. */
export const UPSTREAM_API_KEY = 'bench-upstream-key';
export const BRIDGE_MODEL = 'agent-model-1';

export interface BenchSetup {
  dataDir: string;
  /** Gateway API key per transport: each key's group holds exactly that transport's account. */
  keys: Record<Transport, string>;
  gatewayConfig: GatewayChildConfig;
  /** Subscription tokens for the direct calls. */
  tokens: Record<'native' | 'bridge', BenchTokens>;
  remove(): void;
}

/**
 * A fresh data folder with one account per transport, each in its own group with its own key,
 * so a request's key decides its transport. Capacity is far above any concurrency the benchmark
 * uses: the scheduler's size-weighted slots are policy, and the benchmark measures overhead.
 * Subscription accounts really deliver about 1.6 MP; here they may take 4K sizes, because the
 * point is what a 4K payload costs on their transport (the simulator serves any valid size).
 */
export async function prepareDataDir(
  sim: SimulatorReady,
  opts: {
    verbose: boolean;
    keepApiImages: boolean;
    /** An empty PostgreSQL database for the gateway (migrated here); else the folder's SQLite. */
    databaseUrl?: string;
  },
): Promise<BenchSetup> {
  const dataDir = freshBenchDir('atelier-bench-');
  const engine: SqlEngine =
    opts.databaseUrl === undefined
      ? sqliteEngine(openDatabase(databasePath(dataDir)))
      : await openPostgresDatabase({ url: opts.databaseUrl });
  try {
    const keys = createKeysRepository(engine);
    const settings = await openSettingsRepository(engine);
    await settings.set(SETTINGS.keepApiImages, opts.keepApiImages);
    const accounts = await openAccountsRepository(engine);
    const common = {
      capacity: 4096,
      enabled: true,
      modelMap: {},
      maxPixels: API_KEY_MAX_PIXELS,
    };
    const subscription = (baseUrl: string, tokens: BenchTokens, group: string): NewAccount => ({
      ...common,
      name: group,
      kind: 'subscription',
      tier: 'pro',
      groupName: group,
      baseUrl: `${baseUrl}/backend-api/codex`,
      issuer: baseUrl,
      bridgeModel: BRIDGE_MODEL,
      upstreamAccountId: tokens.accountId,
      secretName: group,
    });
    await accounts.create({
      ...common,
      name: 'bench-apiKey',
      kind: 'api_key',
      tier: 'api',
      groupName: 'bench-apiKey',
      baseUrl: `${sim.url}/v1`,
      issuer: null,
      bridgeModel: null,
      upstreamAccountId: null,
      secretName: 'bench-apiKey',
    });
    await accounts.create(subscription(sim.url, sim.tokens.native, 'bench-native'));
    await accounts.create(subscription(sim.bridgeUrl, sim.tokens.bridge, 'bench-bridge'));

    const oauth = (t: BenchTokens): AccountSecret => ({
      type: 'oauth',
      accessToken: t.accessToken,
      refreshToken: t.refreshToken,
      idToken: t.idToken,
      expiresAt: t.expiresAt,
    });
    const secrets: Record<string, AccountSecret> = {
      'bench-apiKey': { type: 'api_key', apiKey: UPSTREAM_API_KEY },
      'bench-native': oauth(sim.tokens.native),
      'bench-bridge': oauth(sim.tokens.bridge),
    };
    const key = async (transport: Transport) =>
      (await keys.create({ name: `bench-${transport}`, group: `bench-${transport}` })).key;
    return {
      dataDir,
      keys: {
        apiKey: await key('apiKey'),
        native: await key('native'),
        bridge: await key('bridge'),
      },
      gatewayConfig: {
        dataDir,
        upstreamBaseUrl: `${sim.url}/v1`,
        secrets: Object.fromEntries(
          Object.entries(secrets).map(([name, secret]) => [name, JSON.stringify(secret)]),
        ),
        verbose: opts.verbose,
        ...(opts.databaseUrl !== undefined && { databaseUrl: opts.databaseUrl }),
      },
      tokens: sim.tokens,
      remove: () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  } finally {
    await engine.close();
  }
}
