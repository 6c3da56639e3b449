import type { AccountView } from '../../../shared/admin';
import { formatDuration } from '../../lib/format';

export type StatusTone = 'ok' | 'warn' | 'error' | 'off';

export interface AccountStatusView {
  tone: StatusTone;
  label: string;
  /** Why, in a sentence (the cooldown reason, the out-of-service reason). */
  reason: string | null;
  /** Time left of a cooldown, counting down from `now`; null when not cooling. */
  timeLeft: string | null;
}

const LABELS: Record<AccountView['status']['state'], string> = {
  ready: 'Ready',
  failing: 'Failing',
  cooling: 'Cooling down',
  disabled: 'Disabled',
  out_of_service: 'Out of service',
};

/**
 * What the status column says at `now`. The cooldown is counted down here rather than read from
 * the server's sentence, so it ticks between polls; once it runs out the account reads as ready
 * until the next poll confirms it.
 */
export function accountStatusView(account: AccountView, now: number): AccountStatusView {
  const { state, detail } = account.status;
  if (state === 'cooling' || (account.cooldownUntil !== null && account.cooldownUntil > now)) {
    if (account.enabled && !account.disabledReason) {
      const left = (account.cooldownUntil ?? now) - now;
      if (left > 0) {
        return {
          tone: 'warn',
          label: LABELS.cooling,
          reason: account.cooldownReason ?? 'no reason recorded',
          timeLeft: formatDuration(left),
        };
      }
      return { tone: 'ok', label: LABELS.ready, reason: null, timeLeft: null };
    }
  }
  if (state === 'disabled')
    return { tone: 'off', label: LABELS.disabled, reason: null, timeLeft: null };
  if (state === 'failing')
    return { tone: 'error', label: LABELS.failing, reason: detail, timeLeft: null };
  if (state === 'out_of_service')
    return { tone: 'error', label: LABELS.out_of_service, reason: detail, timeLeft: null };
  return { tone: 'ok', label: LABELS.ready, reason: null, timeLeft: null };
}

/** Load as a share of capacity, 0..1 (weights: a 1024-class image weighs 1). */
export function loadShare(account: Pick<AccountView, 'load' | 'capacity'>): number {
  return account.capacity > 0 ? Math.min(1, Math.max(0, account.load / account.capacity)) : 0;
}

const KIND_LABELS: Record<AccountView['kind'], string> = {
  simulator: 'Simulator',
  api_key: 'API key',
  subscription: 'Subscription',
};

export function kindLabel(kind: AccountView['kind']): string {
  return KIND_LABELS[kind];
}
