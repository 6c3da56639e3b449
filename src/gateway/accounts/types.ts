import type { CooldownKind } from '../dispatch/cooldownPolicy';
import type { AccountKind } from '../upstream/types';

/** Base URL of accounts served by the in-process simulator (its port changes every start). */
export const BUILTIN = 'builtin';

/** Plan names from the id token's `chatgpt_plan_type`, plus `api` for API-key accounts. */
export const TIER_RANK: Record<string, number> = {
  free: 0,
  plus: 1,
  team: 2,
  business: 2,
  pro: 3,
  enterprise: 3,
  api: 4,
};

export function tierRank(tier: string): number {
  return TIER_RANK[tier] ?? 0;
}

/** An upstream account as stored (no secrets: those are in the SecretStore under `secretName`). */
export interface AccountRecord {
  id: string;
  name: string;
  kind: AccountKind;
  /** `free`, `plus`, `pro`, `team`, ... for subscription accounts; `api` for API-key accounts. */
  tier: string;
  groupName: string;
  /** Concurrency budget in weight units (a 1024-class image weighs 1; see dispatch/weights.ts). */
  capacity: number;
  enabled: boolean;
  /** Public model id -> upstream model id. */
  modelMap: Record<string, string>;
  /** The largest output (pixels) this account really delivers. */
  maxPixels: number;
  baseUrl: string;
  /** Subscription accounts: the OAuth issuer and the bridge's text model (a setting, never hard-coded). */
  issuer: string | null;
  bridgeModel: string | null;
  /** Subscription accounts: the `chatgpt-account-id` header value, from the id token. */
  upstreamAccountId: string | null;
  secretName: string | null;
  /** Why the account is out of service, when it is (a permanent refresh failure, say). */
  disabledReason: string | null;
  cooldownUntil: number | null;
  cooldownReason: string | null;
  /** Why it rests: a usage window, a rate limit, or outages seen by several requests. */
  cooldownKind: CooldownKind | null;
  createdAt: number;
}
