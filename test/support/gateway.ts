import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { Agent } from 'undici';
import { createGateway, type Gateway, type GatewayConfig } from '../../src/gateway';
import { CONTROL_HEADER } from '../../src/simulator';
import { databasePath } from '../../src/gateway/core/dataDir';
import { openDatabase, type Db } from '../../src/gateway/storage/db';
import {
  createKeysRepository,
  type KeysRepository,
  type NewApiKey,
} from '../../src/gateway/keys/repository';
import {
  openSettingsRepository,
  type SettingsRepository,
} from '../../src/gateway/storage/settingsRepository';
import { sqliteEngine } from '../../src/gateway/storage/sqliteEngine';
import {
  openPricesRepository,
  type PricesRepository,
} from '../../src/gateway/storage/pricesRepository';
import { checkedFetch, checkRepliesOf } from './openapiReplies';

export interface TestGateway {
  gateway: Gateway;
  url: string;
  key: string;
  dataDir: string;
  /** A second connection to the gateway's real SQLite file, for checking usage records. */
  db: Db;
  client: OpenAI;
  simUrl: string;
  /** Every line the gateway logged, in order. */
  logs: readonly string[];
  newKey(name?: string, opts?: Partial<NewApiKey>): Promise<{ key: string; id: string }>;
  close(): Promise<void>;
}

export function tempDir(prefix = 'atelier-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A real gateway on a free loopback port with the built-in simulator at full speed. */
export async function startTestGateway(
  opts: {
    allowedOrigins?: string[];
    simulatorSpeed?: number;
    cooldowns?: GatewayConfig['cooldowns'];
    /** A data folder of the test's own (a small tmpfs); removed (emptied) on close like the default. */
    dataDir?: string;
    /** How long /healthz answers 503 `draining` on close before the port closes (a balancer's test). */
    drainNoticeMs?: number;
  } = {},
): Promise<TestGateway> {
  const dataDir = opts.dataDir ?? tempDir();
  const db = openDatabase(databasePath(dataDir));
  const keys = createKeysRepository(sqliteEngine(db));
  const { key } = await keys.create({ name: 'test', group: 'default' });
  const logs: string[] = [];
  const gateway = await createGateway({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    simulatorSpeed: opts.simulatorSpeed ?? 0,
    allowedOrigins: opts.allowedOrigins,
    cooldowns: opts.cooldowns,
    drainNoticeMs: opts.drainNoticeMs,
    // Sign-ins started from the studio listen on a free port, so suites never collide.
    oauthCallbackPort: 0,
    log: (line) => {
      logs.push(line);
      if (process.env.ATELIER_TEST_LOG) process.stderr.write(`${line}\n`);
    },
  });
  const url = await gateway.listen();
  checkRepliesOf(url);
  registerSimulator(gateway.simulator!.url, gateway.simulator!.controlToken);
  const client = new OpenAI({
    apiKey: key,
    baseURL: `${url}/v1`,
    maxRetries: 0,
    timeout: 60_000,
    fetch: checkedFetch,
  });
  return {
    gateway,
    url,
    key,
    dataDir,
    db,
    client,
    simUrl: gateway.simulator!.url,
    logs,
    async newKey(name = 'extra', opts = {}) {
      const created = await keys.create({ name, group: 'default', ...opts });
      return { key: created.key, id: created.record.id };
    },
    async close() {
      await gateway.close(1_000);
      db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface StudioClient {
  /** `atelier_session=...`, as the browser would send it. */
  cookie: string;
  /** fetch against the gateway as the studio: the session cookie and `x-atelier-studio: 1`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON in, JSON out; throws with the body when the answer is not 2xx. */
  json<T = Record<string, unknown>>(
    path: string,
    init?: { method?: string; body?: unknown },
  ): Promise<T>;
}

/** Signs in as the studio does: a one-time login link, then the cookie it sets. */
export async function studioLogin(t: TestGateway): Promise<StudioClient> {
  const res = await fetch(await t.gateway.createStudioLogin(), { redirect: 'manual' });
  if (res.status !== 303) throw new Error(`studio login answered ${res.status}`);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const studioFetch = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('cookie', cookie);
    headers.set('x-atelier-studio', '1');
    return checkedFetch(`${t.url}${path}`, { ...init, headers });
  };
  return {
    cookie,
    fetch: studioFetch,
    async json<T>(path: string, init: { method?: string; body?: unknown } = {}) {
      const res = await studioFetch(path, {
        method: init.method ?? 'GET',
        headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      if (!res.ok)
        throw new Error(`${init.method ?? 'GET'} ${path} answered ${res.status}: ${text}`);
      return JSON.parse(text) as T;
    },
  };
}

/** The ids of a request's kept images, once all `count` are in the gallery (the 'image' event). */
export function keptImages(t: TestGateway, requestId: string, count = 1): Promise<string[]> {
  const read = () =>
    t.db
      .prepare('SELECT id FROM images WHERE request_id = ? ORDER BY image_index')
      .pluck()
      .all(requestId) as string[];
  return new Promise((resolve) => {
    const check = () => {
      const ids = read();
      if (ids.length < count) return;
      t.gateway.events.off('image', check);
      resolve(ids);
    };
    t.gateway.events.on('image', check);
    check();
  });
}

/** Each running simulator's control credential, by its URL (registered when it starts). */
const simulatorTokens = new Map<string, string>();

export function registerSimulator(simUrl: string, controlToken: string): void {
  simulatorTokens.set(simUrl, controlToken);
}

/**
 * A fetch init for the simulator's control routes (`/__sim/*`): they answer only with the run's
 * credential in `x-atelier-sim-control`.
 */
export function simInit(simUrl: string, init: RequestInit = {}): RequestInit {
  const token = simulatorTokens.get(simUrl);
  if (!token) throw new Error(`no control credential registered for the simulator at ${simUrl}`);
  const headers = new Headers(init.headers);
  headers.set(CONTROL_HEADER, token);
  return { ...init, headers, dispatcher: CONTROL_AGENT } as RequestInit;
}

/**
 * Control requests go on a connection of their own each time. A test's calls to the simulator are
 * seconds apart (a generation runs between them), longer than its 5 s keep-alive under load: a
 * pooled connection would meet the keep-alive race (the server closing it as it is reused) and the
 * test would read ECONNRESET from its own bookkeeping.
 */
const CONTROL_AGENT = new Agent({ pipelining: 0 });

/** Scripts the simulator's next replies (its control API over HTTP). */
export async function scriptFaults(
  simUrl: string,
  faults: Array<Record<string, unknown>>,
): Promise<void> {
  const res = await fetch(
    `${simUrl}/__sim/faults`,
    simInit(simUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ faults }),
    }),
  );
  if (!res.ok) throw new Error(`scripting faults failed: ${res.status} ${await res.text()}`);
}

export async function clearFaults(simUrl: string): Promise<void> {
  await fetch(`${simUrl}/__sim/faults`, simInit(simUrl, { method: 'DELETE' }));
}

export interface UsageRow {
  request_id: string;
  endpoint: string;
  model: string | null;
  size: string | null;
  delivered_size: string | null;
  quality: string | null;
  delivered_quality: string | null;
  output_format: string | null;
  n: number;
  stream: number;
  status: number;
  error_code: string | null;
  input_tokens: number;
  input_text_tokens: number;
  input_image_tokens: number;
  output_tokens: number;
  output_text_tokens: number;
  output_image_tokens: number;
  total_tokens: number;
  images: number;
  latency_ms: number;
  upstream_account_id: string | null;
  group_name: string | null;
  user: string | null;
  api_key_id: string | null;
  cost_micros: number;
  fallback_step: string | null;
  /** 1 when the tokens and cost are the gateway's estimate (issue 23). */
  estimated: number;
}

/**
 * The usage record of a request. Records are written when the response has closed, which can be
 * a moment after the client has read it: this waits for the gateway's `usage` event.
 */
export async function usageRow(
  t: Pick<TestGateway, 'db' | 'gateway'>,
  requestId: string,
): Promise<UsageRow> {
  const read = () =>
    t.db.prepare('SELECT * FROM usage_records WHERE request_id = ?').get(requestId) as
      UsageRow | undefined;
  const existing = read();
  if (existing) return existing;
  await new Promise<void>((resolve) => {
    const onUsage = (id: string) => {
      if (id !== requestId) return;
      t.gateway.events.off('usage', onUsage);
      resolve();
    };
    t.gateway.events.on('usage', onUsage);
    // The record may have landed between the read above and the subscription.
    if (read()) onUsage(requestId);
  });
  return read()!;
}

export function usageCount(db: Db, requestId: string): number {
  return (
    db.prepare('SELECT COUNT(*) AS c FROM usage_records WHERE request_id = ?').get(requestId) as {
      c: number;
    }
  ).c;
}

/**
 * The settings of a gateway's database through a connection of the test's own, as another process
 * (the CLI) would change them: the gateway sees the change on its next request.
 */
export async function settingsIn(db: Db): Promise<SettingsRepository> {
  return openSettingsRepository(sqliteEngine(db));
}

/** The prices of a gateway's database through a connection of the test's own (as settingsIn). */
export async function pricesIn(db: Db): Promise<PricesRepository> {
  return openPricesRepository(sqliteEngine(db));
}

/** A key made in a gateway's database through a connection of the test's own (as settingsIn). */
export function keysIn(db: Db): KeysRepository {
  return createKeysRepository(sqliteEngine(db));
}
