import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator';
import { BUILTIN, type AccountRecord } from '../core/domain';
import { writeAccountSecret } from '../secrets/accountSecret';
import type { SecretStore } from '../secrets/types';
import { UpstreamError } from '../core/upstreamError';
import { upstreamFactory } from './factory';
import { piecesLength } from '../bytes/base64Pieces';
import type { ImageUpstream } from './types';

function memorySecrets(): SecretStore {
  const map = new Map<string, string>();
  return {
    kind: 'memory',
    get: async (name) => map.get(name) ?? null,
    set: async (name, value) => void map.set(name, value),
    delete: async (name) => void map.delete(name),
  };
}

function account(
  fields: Partial<AccountRecord> & Pick<AccountRecord, 'id' | 'kind'>,
): AccountRecord {
  return {
    name: fields.id,
    tier: 'api',
    groupName: '*',
    capacity: 4,
    enabled: true,
    modelMap: {},
    maxPixels: 4_000_000,
    baseUrl: BUILTIN,
    issuer: null,
    bridgeModel: null,
    upstreamAccountId: null,
    secretName: null,
    disabledReason: null,
    cooldownUntil: null,
    cooldownReason: null,
    cooldownKind: null,
    createdAt: 0,
    ...fields,
  };
}

/** One real image through the adapter: proves the URL and credential it was made with work. */
async function makesAnImage(upstream: ImageUpstream): Promise<void> {
  const outcome = await upstream.generateImage(
    {
      operation: 'generate',
      model: 'image-model-2',
      prompt: 'a fox',
      size: '1024x1024',
      partialImages: 0,
      images: [],
    },
    { signal: new AbortController().signal, timeoutMs: 30_000 },
  );
  expect(piecesLength(outcome.b64)).toBeGreaterThan(100);
}

describe('upstreamFactory: one adapter per account kind', () => {
  let simulator: Simulator;
  const agent = new Agent();
  const secrets = memorySecrets();
  /** Which accounts asked the composition for OAuth tokens, and with which secret store. */
  const tokenAsks: Array<{ id: string; store: SecretStore }> = [];
  let make: ReturnType<typeof upstreamFactory>;

  beforeAll(async () => {
    simulator = await startSimulator({ speed: 0 });
    make = upstreamFactory({
      simulatorUrl: simulator.url,
      fallback: { id: 'upstream', apiKey: 'sk-from-env' },
      secrets: async () => secrets,
      bridgeModel: () => 'text-model-setting',
      tokensFor: (acct, store) => {
        tokenAsks.push({ id: acct.id, store });
        return { accessToken: async () => 'token', forceRefresh: async () => 'token' };
      },
      agent,
      now: () => Date.now(),
    });
  });
  afterAll(async () => {
    await agent.close();
    await simulator.close();
  });

  it('a simulator account talks to the built-in simulator with its own key', async () => {
    const upstream = await make(account({ id: 'sim1', kind: 'simulator' }));
    expect(upstream.account).toMatchObject({
      kind: 'simulator',
      baseUrl: `${simulator.url}/v1`,
      credential: 'sim-sim1',
    });
    await makesAnImage(upstream);
  });

  it('the implicit account of a forced upstream URL uses the key from the environment', async () => {
    const upstream = await make(
      account({ id: 'upstream', kind: 'api_key', baseUrl: `${simulator.url}/v1` }),
    );
    expect(upstream.account).toMatchObject({ kind: 'api_key', credential: 'sk-from-env' });
    await makesAnImage(upstream);
  });

  it('an API-key account uses the key stored under its secret name', async () => {
    await writeAccountSecret(secrets, 'acct-key', { type: 'api_key', apiKey: 'sk-stored' });
    const upstream = await make(
      account({
        id: 'k1',
        kind: 'api_key',
        baseUrl: `${simulator.url}/v1`,
        secretName: 'acct-key',
      }),
    );
    expect(upstream.account).toMatchObject({ kind: 'api_key', credential: 'sk-stored' });
    await makesAnImage(upstream);
  });

  it('an API-key account without a stored key is unauthorized, not a crash', async () => {
    const made = make(
      account({ id: 'k2', kind: 'api_key', baseUrl: 'http://127.0.0.1:9/v1', secretName: 'none' }),
    );
    await expect(made).rejects.toBeInstanceOf(UpstreamError);
    await expect(made).rejects.toMatchObject({ failure: { kind: 'unauthorized' } });
  });

  it.each([
    ['database', "the database's sealed secrets"],
    ['keychain', 'the OS keychain'],
    ['encrypted-file', 'the encrypted secrets file'],
  ] as const)(
    'a missing key names the store in use (%s), not always the keychain',
    async (kind, named) => {
      const store: SecretStore = { ...memorySecrets(), kind };
      const fromStore = upstreamFactory({
        simulatorUrl: simulator.url,
        fallback: null,
        secrets: async () => store,
        bridgeModel: () => 'text-model-setting',
        tokensFor: () => ({ accessToken: async () => 'token', forceRefresh: async () => 'token' }),
        agent,
        now: Date.now,
      });
      const made = fromStore(
        account({
          id: 'k3',
          kind: 'api_key',
          baseUrl: 'http://127.0.0.1:9/v1',
          secretName: 'none',
        }),
      );
      await expect(made).rejects.toMatchObject({
        failure: {
          kind: 'unauthorized',
          message: `no API key stored in ${named} for this account`,
        },
      });
    },
  );

  it('a subscription account needs its chatgpt-account-id', async () => {
    const made = make(
      account({ id: 's1', kind: 'subscription', baseUrl: 'https://chatgpt.example/backend-api' }),
    );
    await expect(made).rejects.toMatchObject({ failure: { kind: 'unauthorized' } });
  });

  it('a subscription account gets the bridge adapter with the account id and setting model', async () => {
    const upstream = await make(
      account({
        id: 's2',
        kind: 'subscription',
        tier: 'plus',
        baseUrl: 'https://chatgpt.example/backend-api',
        upstreamAccountId: 'acct-123',
        secretName: 'sub-secret',
      }),
    );
    expect(upstream.account).toMatchObject({
      id: 's2',
      kind: 'subscription',
      baseUrl: 'https://chatgpt.example/backend-api',
    });
    // Its tokens come from the sign-in layer the composition wires in, over the same store.
    expect(tokenAsks).toEqual([{ id: 's2', store: secrets }]);
  });
});
