import { randomBytes } from 'node:crypto';
import { LEASE_CLOCK, type SqlEngine } from '../storage/engine';

/**
 * How long a slot lease holds without renewal. Its instance renews every lease it holds each
 * third of this while the calls run, so only a dead instance's leases lapse, and their slots come
 * back within this long.
 */
export const SLOT_LEASE_MS = 30_000;

/** A claimed share of an account's capacity; `release` gives it back (once). */
export interface SlotLease {
  readonly id: string;
  release(): Promise<void>;
}

/**
 * Per-account concurrency slots shared by every instance on one database: a lease row per call in
 * flight, weighted by its output size (dispatch/sizeClass.ts), so an account's capacity holds
 * across instances. The scheduler still chooses and queues in memory (fast, and fair within the
 * instance); a claim is the database's yes or no for the account it chose.
 */
export interface SlotLeases {
  /**
   * A slot of `weight` on the account, or null when the leases of all instances leave no room.
   * As in the scheduler, an account with nothing in flight takes a call heavier than its whole
   * capacity (a 4K image on a small account). Throws RestedElsewhere when the database has the
   * account resting: another instance rested it, and this one has not read its notice yet.
   */
  claim(accountId: string, weight: number, capacity: number): Promise<SlotLease | null>;
  /** Leases this instance holds now. */
  readonly held: number;
  /** Stops renewing (the gateway is closing). */
  close(): void;
}

/** A claim on an account the database has resting (slotLeases.claim). */
export class RestedElsewhere extends Error {
  override readonly name = 'RestedElsewhere';
  constructor() {
    super('the account rests: another instance rested it');
  }
}

export function createSlotLeases(
  engine: SqlEngine,
  options: { owner: string; now: () => number; log: (line: string) => void },
): SlotLeases {
  const held = new Set<string>();
  let renewal: NodeJS.Timeout | null = null;
  const stopRenewing = () => {
    if (renewal) clearInterval(renewal);
    renewal = null;
  };
  const keepRenewing = () => {
    if (held.size === 0) return stopRenewing();
    if (renewal) return;
    renewal = setInterval(() => {
      engine
        .run(`UPDATE account_leases SET held_until = ${LEASE_CLOCK} + ? WHERE owner = ?`, [
          options.now(),
          SLOT_LEASE_MS,
          options.owner,
        ])
        .catch((error: Error) =>
          options.log(`account slot leases could not be renewed: ${error.message}`),
        );
    }, SLOT_LEASE_MS / 3);
    renewal.unref();
  };

  return {
    async claim(accountId, weight, capacity) {
      const now = options.now();
      const id = `lease_${randomBytes(8).toString('hex')}`;
      const granted = await engine.transaction(async (tx) => {
        // One decision per account at a time, on any instance (SQLite: the write lock).
        if (tx.kind === 'postgres')
          await tx.get('SELECT pg_advisory_xact_lock(hashtext(?))', [`slots:${accountId}`]);
        // A dead instance's leases lapse: their slots come back. Judged by the lease clock, so
        // an instance whose clock runs ahead does not take a live instance's slots.
        await tx.run(
          `DELETE FROM account_leases WHERE account_id = ? AND held_until <= ${LEASE_CLOCK}`,
          [accountId, now],
        );
        // The account's rest is read in the same round trip: a rest another instance wrote is
        // binding at once, not only once its change notice has arrived here.
        const { load, resting_until } = (await tx.get<{
          load: number;
          resting_until: number | string | null;
        }>(
          `SELECT COALESCE(SUM(weight), 0) AS load,
             (SELECT cooldown_until FROM accounts WHERE id = ?) AS resting_until
           FROM account_leases WHERE account_id = ?`,
          [accountId, accountId],
        ))!;
        if (resting_until !== null && Number(resting_until) > now) throw new RestedElsewhere();
        if (load > 0 && load + weight > capacity) return false;
        await tx.run(
          `INSERT INTO account_leases (id, account_id, weight, owner, held_until)
           VALUES (?, ?, ?, ?, ${LEASE_CLOCK} + ?)`,
          [id, accountId, weight, options.owner, now, SLOT_LEASE_MS],
        );
        return true;
      });
      if (!granted) return null;
      held.add(id);
      keepRenewing();
      let released = false;
      return {
        id,
        async release() {
          if (released) return;
          released = true;
          held.delete(id);
          keepRenewing();
          await engine.run('DELETE FROM account_leases WHERE id = ?', [id]);
        },
      };
    },
    get held() {
      return held.size;
    },
    close: stopRenewing,
  };
}
