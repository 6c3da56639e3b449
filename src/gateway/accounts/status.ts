import type { AccountRecord } from '../core/domain';

/** One word and a sentence on an account's state, the same in the CLI, the admin API and the studio. */
export function accountStatus(
  a: AccountRecord,
  now: number,
  /** Its latest calls did not reach it (dispatch's view, in memory): failing, not ready. */
  failing: { reason: string } | null = null,
): { state: 'ready' | 'failing' | 'cooling' | 'disabled' | 'out_of_service'; detail: string } {
  if (!a.enabled) return { state: 'disabled', detail: 'disabled by the user' };
  if (a.disabledReason) return { state: 'out_of_service', detail: a.disabledReason };
  if (a.cooldownUntil !== null && a.cooldownUntil > now) {
    const left = Math.ceil((a.cooldownUntil - now) / 1000);
    const human =
      left >= 3600
        ? `${Math.floor(left / 3600)} h ${Math.ceil((left % 3600) / 60)} min`
        : left >= 60
          ? `${Math.ceil(left / 60)} min`
          : `${left} s`;
    return {
      state: 'cooling',
      detail: `back in ${human} (${new Date(a.cooldownUntil).toISOString()}): ${a.cooldownReason ?? 'no reason recorded'}`,
    };
  }
  if (failing) return { state: 'failing', detail: failing.reason };
  return { state: 'ready', detail: '' };
}
