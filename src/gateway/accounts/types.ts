import { ownValue } from '../../shared/ownProperty';

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
  return ownValue(TIER_RANK, tier) ?? 0;
}

/** Subscription accounts deliver about 1.6 MP whatever is asked (protocol page 2.2). */
export const SUBSCRIPTION_MAX_PIXELS = 1_638_400;
/** API-key accounts deliver up to 4K (3840x2160). */
export const API_KEY_MAX_PIXELS = 8_294_400;
