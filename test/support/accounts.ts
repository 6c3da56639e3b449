import type { AccountsRepository, NewAccount } from '../../src/gateway/accounts/repository';
import type { SlotLeases } from '../../src/gateway/accounts/slotLeases';
import { API_KEY_MAX_PIXELS } from '../../src/gateway/accounts/types';
import { composeDispatch } from '../../src/gateway/dispatch/compose';
import type { Dispatch } from '../../src/gateway/dispatch/dispatchCall';
import { DEFAULT_TIMEOUTS } from '../../src/gateway/dispatch/sizeClass';
import type { ImageUpstream } from '../../src/gateway/upstream/types';

/**
 * An enabled API-key account in group `default` for tests that run dispatch over a real accounts
 * table; `overrides` say what the test is about. Its base URL is a closed port (127.0.0.1:9):
 * such tests call a stand-in, never the URL.
 */
export function apiKeyAccount(overrides: Partial<NewAccount> & { name: string }): NewAccount {
  return {
    kind: 'api_key',
    tier: 'api',
    groupName: 'default',
    capacity: 4,
    enabled: true,
    modelMap: {},
    maxPixels: API_KEY_MAX_PIXELS,
    baseUrl: 'http://127.0.0.1:9/v1',
    issuer: null,
    bridgeModel: null,
    upstreamAccountId: null,
    secretName: null,
    ...overrides,
  };
}

/**
 * Dispatch over a real accounts table, as the request path composes it, for tests that run
 * `dispatchCall` with a call of their own: the adapter is a stand-in that only names its account
 * (the calls under test never use it), and with `slotLeases` the slots are shared as a team
 * gateway's instance shares them.
 */
export function dispatchOverAccounts(
  accounts: AccountsRepository,
  slotLeases: SlotLeases | null = null,
): Dispatch {
  return composeDispatch({
    accounts,
    slotLeases,
    fallback: null,
    makeUpstream: (account) => Promise.resolve({ account } as unknown as ImageUpstream),
    now: Date.now,
    log: () => undefined,
    timeouts: () => DEFAULT_TIMEOUTS,
  });
}
