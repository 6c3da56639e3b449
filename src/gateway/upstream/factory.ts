import type { Dispatcher as HttpAgent } from 'undici';
import { BUILTIN, type AccountRecord } from '../core/domain';
import { readAccountSecret } from '../secrets/accountSecret';
import type { SecretStore } from '../secrets/types';
import { createApiKeyUpstream } from './apiKeyImages';
import { UpstreamError } from '../core/upstreamError';
import {
  createSubscriptionUpstream,
  type SubscriptionDeps,
} from './subscription/subscriptionUpstream';
import type { ImageUpstream } from './types';

export interface UpstreamFactoryDeps {
  /** The built-in simulator's URL, or null when an external upstream URL was forced. */
  simulatorUrl: string | null;
  /** The implicit account (a forced upstream URL) and its key from the environment. */
  fallback: { id: string; apiKey: string } | null;
  secrets: () => Promise<SecretStore>;
  /** The bridge's text model for subscription accounts that name none (a setting). */
  bridgeModel: () => string;
  /**
   * The OAuth tokens of a subscription account (oauth/, wired by the composition: upstream/
   * does not import the sign-in layer, which imports upstream's errors).
   */
  tokensFor: (account: AccountRecord, secrets: SecretStore) => SubscriptionDeps['tokens'];
  agent: HttpAgent;
  now: () => number;
}

/** Where a secret was looked for, in a message (a team gateway's store is no keychain). */
const STORE_NAMES: Record<SecretStore['kind'], string> = {
  keychain: 'the OS keychain',
  'encrypted-file': 'the encrypted secrets file',
  database: "the database's sealed secrets",
  memory: 'the in-memory secret store',
};

/** Makes the upstream adapter of an account, by its kind, with its secret from the store. */
export function upstreamFactory(deps: UpstreamFactoryDeps) {
  const { agent: dispatcher, now } = deps;
  return async (account: AccountRecord): Promise<ImageUpstream> => {
    const base = {
      id: account.id,
      name: account.name,
      kind: account.kind,
      modelMap: account.modelMap,
    };
    if (account.kind === 'simulator' || account.baseUrl === BUILTIN) {
      if (!deps.simulatorUrl)
        throw new Error(
          'the built-in simulator is not running (an external upstream URL was forced)',
        );
      // Each simulated account has its own key, so the simulator can tell accounts apart.
      return createApiKeyUpstream(
        { ...base, baseUrl: `${deps.simulatorUrl}/v1`, credential: `sim-${account.id}` },
        { dispatcher, now },
      );
    }
    if (account.id === deps.fallback?.id) {
      return createApiKeyUpstream(
        { ...base, baseUrl: account.baseUrl, credential: deps.fallback.apiKey },
        { dispatcher, now },
      );
    }
    const store = await deps.secrets();
    const secret = account.secretName ? await readAccountSecret(store, account.secretName) : null;
    if (account.kind === 'api_key') {
      if (secret?.type !== 'api_key')
        throw new UpstreamError({
          kind: 'unauthorized',
          message: `no API key stored in ${STORE_NAMES[store.kind]} for this account`,
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
    const tokens = deps.tokensFor(account, store);
    return createSubscriptionUpstream(
      {
        ...base,
        baseUrl: account.baseUrl,
        credential: '',
        upstreamAccountId: account.upstreamAccountId,
        bridgeModel: account.bridgeModel ?? deps.bridgeModel(),
      },
      { dispatcher, now, tokens },
    );
  };
}
