// Test helper (imported only by *.test.ts): a real subscription adapter against a real
// simulator, with real OAuth tokens kept by the real token manager.
import sharp from 'sharp';
import { Agent, type Dispatcher } from 'undici';
import { onTestFinished } from 'vitest';
import type { Simulator } from '../../../simulator';
import { accessTokenExpiry } from '../../oauth/claims';
import { memorySecretStore } from '../../oauth/testing';
import { createTokenManager } from '../../oauth/tokenManager';
import type { CallOptions, ImageJob, ImageUpstream, InputImage } from '../types';
import { createSubscriptionUpstream, type SubscriptionDeps } from './subscriptionUpstream';

export const CLIENT_ID = 'app_test_client';
export const BRIDGE_MODEL = 'agent-model-1';

export interface SentRequest {
  path: string;
  headers: Record<string, string>;
  /** The JSON body, when it went out as one buffer (edits stream several chunks: null). */
  body: Record<string, unknown> | null;
}

/**
 * A real undici Agent with an interceptor that notes what goes on the wire: the simulator's call
 * log does not keep every header and image setting, this does. Nothing is altered.
 */
function recordingDispatcher(sent: SentRequest[]): Dispatcher {
  const agent = new Agent();
  onTestFinished(() => agent.close());
  return agent.compose((dispatch) => (opts, handler) => {
    const body = Buffer.isBuffer(opts.body)
      ? (JSON.parse(opts.body.toString('utf8')) as Record<string, unknown>)
      : null;
    sent.push({ path: opts.path, headers: { ...(opts.headers as Record<string, string>) }, body });
    return dispatch(opts, handler);
  });
}

export interface Setup {
  upstream: ImageUpstream;
  sent: SentRequest[];
  accountId: string;
  accessToken: string;
  failures: string[];
  /** forceRefresh calls seen by the adapter. */
  forced: number;
}

export function subscriptionSetup(
  sim: Simulator,
  opts: { now?: () => number; originator?: string; bridgeModel?: string } = {},
): Setup {
  const tokens = sim.oauth.login({ clientId: CLIENT_ID });
  // In-memory SecretStore: the real keychain is tested in src/gateway/secrets.
  const secrets = memorySecretStore({
    'oauth:sub': JSON.stringify({
      type: 'oauth',
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      idToken: tokens.id_token,
      expiresAt: accessTokenExpiry(tokens.access_token),
    }),
  });
  const sent: SentRequest[] = [];
  const setup: Setup = {
    upstream: undefined as unknown as ImageUpstream,
    sent,
    accountId: tokens.account_id,
    accessToken: tokens.access_token,
    failures: [],
    forced: 0,
  };
  const manager = createTokenManager({
    account: { id: 'acc_sub', name: 'sub', issuer: sim.url, secretName: 'oauth:sub' },
    secrets,
    clientId: CLIENT_ID,
    onPermanentFailure: (reason) => setup.failures.push(reason),
  });
  const deps: SubscriptionDeps = {
    dispatcher: recordingDispatcher(sent),
    now: opts.now ?? Date.now,
    originator: opts.originator,
    tokens: {
      accessToken: () => manager.accessToken(),
      forceRefresh: (rejected) => {
        setup.forced += 1;
        return manager.forceRefresh(rejected);
      },
    },
  };
  setup.upstream = createSubscriptionUpstream(
    {
      id: 'acc_sub',
      name: 'sub',
      kind: 'subscription',
      baseUrl: `${sim.url}/backend-api/codex/`,
      credential: '',
      modelMap: {},
      upstreamAccountId: tokens.account_id,
      bridgeModel: opts.bridgeModel ?? BRIDGE_MODEL,
    },
    deps,
  );
  return setup;
}

export function generateJob(overrides: Partial<ImageJob> = {}): ImageJob {
  return {
    operation: 'generate',
    model: 'image-model-2',
    prompt: 'a lighthouse at dusk',
    size: '1024x1024',
    quality: 'low',
    outputFormat: 'png',
    partialImages: 0,
    images: [],
    ...overrides,
  };
}

export async function inputImage(bytes: Buffer, filename = 'image.png'): Promise<InputImage> {
  const meta = await sharp(bytes).metadata();
  return {
    bytes,
    format: meta.format === 'jpeg' ? 'jpeg' : meta.format === 'webp' ? 'webp' : 'png',
    width: meta.width!,
    height: meta.height!,
    hasAlpha: meta.hasAlpha === true,
    filename,
  };
}

export function callOptions(onPartial?: CallOptions['onPartial']): CallOptions {
  return { signal: new AbortController().signal, timeoutMs: 60_000, onPartial };
}
