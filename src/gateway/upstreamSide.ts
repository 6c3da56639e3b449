import { Agent } from 'undici';
import type { Simulator } from '../simulator';
import { implicitAccount, startBuiltInSimulator } from './accounts/implicitAccount';
import type { AccountsRepository } from './accounts/repository';
import type { RefreshLock } from './accounts/refreshLock';
import type { SlotLeases } from './accounts/slotLeases';
import type { GatewayConfig } from './config';
import { DEFAULT_COOLDOWNS } from './dispatch/cooldownPolicy';
import { composeDispatch } from './dispatch/compose';
import type { Dispatch } from './dispatch/dispatchCall';
import type { LiveSettings } from './liveSettings';
import { secretStoreOnFirstUse } from './secrets';
import type { SecretStore } from './secrets/types';
import { createTokenManager } from './oauth/tokenManager';
import { upstreamFactory } from './upstream/factory';
import { UPSTREAM_AGENT } from './core/tunables';

export interface UpstreamSide {
  /** The built-in simulator, unless an external upstream URL is forced. */
  simulator: Simulator | null;
  /** The secret store, opened on first use. */
  secrets: () => Promise<SecretStore>;
  dispatch: Dispatch;
  /** The upstream connection pool: given (its owner closes it) or made here. */
  agent: Agent;
  /** Closes the pool when it was made here, and the simulator. */
  stop(): Promise<void>;
}

/**
 * The upstream side of the gateway, composed in one place: the built-in simulator, the account
 * that serves while none is configured, the secret store, an adapter per account kind, and
 * dispatch (pool, queue, retries, timeouts) over them.
 */
export async function composeUpstreamSide(
  config: GatewayConfig,
  deps: {
    accounts: AccountsRepository;
    /** The slots shared by a team gateway's instances (PostgreSQL); null for the embedded one. */
    slotLeases: SlotLeases | null;
    /** OAuth refresh by one instance at a time (PostgreSQL); null for the embedded gateway. */
    refreshLock: RefreshLock | null;
    live: Pick<LiveSettings, 'bridgeModel' | 'upstreamTimeouts'>;
    /** Given rather than made: by default `config.secrets`, else the OS keychain. */
    secrets?: SecretStore;
    /** Given rather than made: the upstream connection pool (closed by its owner). */
    agent?: Agent;
    now: () => number;
    log: (line: string) => void;
  },
): Promise<UpstreamSide> {
  const { accounts, refreshLock, now, log } = deps;
  const simulator = await startBuiltInSimulator(config);
  const agent = deps.agent ?? new Agent(UPSTREAM_AGENT);
  const stop = async () => {
    if (!deps.agent) await agent.close();
    if (simulator) await simulator.close();
  };
  const fallback = implicitAccount(config, simulator);
  const given = deps.secrets ?? config.secrets;
  const secrets = secretStoreOnFirstUse({ given, dataDir: config.dataDir, env: process.env });
  const dispatch = composeDispatch({
    accounts,
    slotLeases: deps.slotLeases,
    fallback,
    makeUpstream: upstreamFactory({
      simulatorUrl: simulator?.url ?? null,
      fallback: fallback && { id: fallback.id, apiKey: config.upstreamApiKey ?? '' },
      secrets,
      bridgeModel: deps.live.bridgeModel,
      tokensFor: (account, store) =>
        createTokenManager({
          account: {
            id: account.id,
            name: account.name,
            issuer: account.issuer,
            secretName: account.secretName,
          },
          secrets: store,
          exclusive: refreshLock ? (work) => refreshLock(account.id, work) : undefined,
          now,
          log,
          // A refresh token that expired or was revoked needs a person: say what to do.
          onPermanentFailure: (reason) =>
            void accounts
              .update(account.id, {
                disabledReason: `sign-in no longer valid (${reason}); run: atelier accounts login --name ${account.name}`,
              })
              .catch((error: Error) =>
                log(`account ${account.id}: its sign-in failure was not saved: ${error.message}`),
              ),
        }),
      agent,
      now,
    }),
    cooldowns: { ...DEFAULT_COOLDOWNS, ...config.cooldowns },
    timeouts: deps.live.upstreamTimeouts,
    now,
    log,
  });
  // Composing dispatch starts nothing: only the simulator and a pool made here need stopping.
  return { simulator, secrets, dispatch, agent, stop };
}
