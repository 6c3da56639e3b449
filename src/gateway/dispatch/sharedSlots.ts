import type { SlotLeases } from '../accounts/slotLeases';

/**
 * How long an account refused by the shared leases (other instances fill it) is left out of this
 * instance's choice: the scheduler's queue tries it again after this, or picks another account.
 */
const FULL_ELSEWHERE_MS = 250;

/**
 * The slots of a team gateway's accounts, shared by its instances (accounts/slotLeases.ts), as
 * dispatch uses them: after the scheduler chose an account, the database says whether the call
 * fits beside every instance's; an account it refuses sits out of the choice briefly, so the
 * request waits in the queue (or takes another account) rather than asking again at once.
 */
export interface SharedSlots {
  /** Whether the account may be chosen now (not just refused as full elsewhere). */
  open(accountId: string): boolean;
  /**
   * The release of a claimed slot, or null when the account is full across instances. Throws
   * RestedElsewhere (accounts/slotLeases.ts) when the database has the account resting.
   */
  claim(accountId: string, weight: number, capacity: number): Promise<(() => void) | null>;
}

export function sharedSlots(
  leases: SlotLeases,
  now: () => number,
  log: (line: string) => void,
): SharedSlots {
  const fullUntil = new Map<string, number>();
  return {
    open(accountId) {
      const until = fullUntil.get(accountId);
      if (until === undefined) return true;
      if (until > now()) return false;
      fullUntil.delete(accountId);
      return true;
    },
    async claim(accountId, weight, capacity) {
      const lease = await leases.claim(accountId, weight, capacity);
      if (!lease) {
        fullUntil.set(accountId, now() + FULL_ELSEWHERE_MS);
        return null;
      }
      return () => {
        lease
          .release()
          .catch((error: Error) =>
            log(`account ${accountId}: its slot lease was not released: ${error.message}`),
          );
      };
    },
  };
}
