import type { Dispatcher as HttpAgent } from 'undici';
import type { AccountRecord } from '../domain';
import { BUILTIN } from '../accounts/types';
import { createTokenManager } from '../oauth';
import { readAccountSecret } from '../secrets';
import type { SecretStore } from '../secrets/types';
import { createApiKeyUpstream } from './apiKeyImages';
import { UpstreamError } from './errors';
import { createSubscriptionUpstream } from './subscription';
import type { ImageUpstream } from './types';

export interface UpstreamFactoryDeps {
  /** The built-in simulator's URL, or null when an external upstream URL was forced. */
  simulatorUrl: string | null;
  /** The implicit account (a forced upstream URL) and its key from the environment. */
  fallback: { id: string; apiKey: string } | null;
  secrets: () => Promise<SecretStore>;
  /** The bridge's text model for subscription accounts that name none (a setting). */
  bridgeModel: () => string;
  /** A sign-in that no longer works puts its account out of service with this reason. */
  disable: (accountId: string, reason: string) => void;
  agent: HttpAgent;
  now: () => number;
  log: (line: string) => void;
}

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
    const secret = account.secretName
      ? await readAccountSecret(await deps.secrets(), account.secretName)
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
      secrets: await deps.secrets(),
      now,
      log: deps.log,
      // A refresh token that expired or was revoked needs a person: say what to do.
      onPermanentFailure: (reason) =>
        deps.disable(
          account.id,
          `sign-in no longer valid (${reason}); run: atelier accounts login --name ${account.name}`,
        ),
    });
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
