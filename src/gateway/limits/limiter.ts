import type { BudgetAlert } from '../../shared/admin';
import type { SqlQueries } from '../storage/engine';
import { budgetAlerts } from './budgetAlerts';
import type { Demand } from './demand';
import type { KeyLimits } from './keyLimits';
import type { LedgerView, UsageLedger } from './ledger';
import {
  budgetExceeded,
  imagesPerDayExceeded,
  keyExpired,
  requestsPerMinuteExceeded,
} from './limitErrors';
import { periodBounds, RPM_WINDOW_MS } from './periods';

/** A key as the limiter sees it. */
export interface LimitedKey {
  id: string;
  limits: KeyLimits;
}

/** A request admitted under its key's limits whose usage row is not written yet. */
interface Ticket {
  keyId: string;
  /** The key's limits when it was admitted (the charged cost is checked against its budget). */
  limits: KeyLimits;
  startedAt: number;
  /** Whether its reservation row exists (made at admission for a per-minute limit, else at the estimate). */
  held: boolean;
  /** Whether its row was deleted in the usage record's own commit (`releaseWithRecord`). */
  released: boolean;
}

/** A key's use against each of its limits, reservations included (for `keys list` and /keys). */
export interface KeyLimitUse {
  /** Spent (and reserved) in the budget's current period; null without a budget. */
  budgetUsedMicros: number | null;
  /** When the budget's period resets; null without a budget or for a total one. */
  budgetResetsAt: number | null;
  imagesToday: number;
  requestsLastMinute: number;
}

/**
 * How long a reservation counts without renewal. The instance that holds it renews its own every
 * third of this while its requests run, so only a dead instance's reservations lapse: by then
 * another instance has recorded its requests from their pending rows, or they cost nothing.
 */
export const RESERVATION_HOLD_MS = 60_000;

export interface KeyLimiterOptions {
  /** This instance, as the owner of its reservations. */
  owner: string;
  now: () => number;
  log: (line: string) => void;
}

/**
 * Enforces a key's limits before any upstream work, exactly, across concurrent requests and
 * across instances that share the database.
 *
 * What is charged comes from the usage log; what is in flight is a reservation row per admitted
 * request (ledger.ts), holding the request's estimate until its usage row is written. A check and
 * its reservation run in one transaction under a lock on the key, so no two requests, on any
 * instance, can both take the last of a budget; and a reservation stops counting the moment its
 * request's row exists, so a request is never counted twice nor missed. The real cost then
 * replaces the estimate, so concurrent requests overshoot a budget by at most what their
 * estimates fell short of the real cost.
 */
export class KeyLimiter {
  /** This instance's admitted requests: what their charge needs to know (the key's limits). */
  private readonly tickets = new Map<string, Ticket>();
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    private readonly ledger: UsageLedger,
    private readonly options: KeyLimiterOptions,
  ) {}

  /** Expiry (any request). Throws the 401 that says so. */
  checkExpiry(key: LimitedKey, now: number): void {
    const { expiresAt } = key.limits;
    if (expiresAt !== null && now >= expiresAt) throw keyExpired(expiresAt);
  }

  /**
   * Requests per minute, then a reservation: from here the request counts as in flight until
   * `charge`. Throws a LimitError (nothing is taken) when the key is at its limit. A key without
   * a per-minute limit writes nothing yet: its reservation is made with the estimate (one write
   * instead of two on the request path).
   */
  async admit(requestId: string, key: LimitedKey, startedAt: number, now: number): Promise<void> {
    const { rpmLimit } = key.limits;
    if (rpmLimit === null) {
      this.tickets.set(requestId, {
        keyId: key.id,
        limits: key.limits,
        startedAt,
        held: false,
        released: false,
      });
      return;
    }
    await this.ledger.decide(key.id, async (view) => {
      const times = await view.requestTimes(key.id, now - RPM_WINDOW_MS, now);
      if (times.length >= rpmLimit) {
        times.sort((a, b) => a - b);
        // The window frees a place once the oldest request of the last `rpmLimit` leaves it.
        const freedAt = times[times.length - rpmLimit]! + RPM_WINDOW_MS;
        throw requestsPerMinuteExceeded(rpmLimit, times.length, freedAt, now);
      }
      await view.hold(
        {
          requestId,
          keyId: key.id,
          startedAt,
          owner: this.options.owner,
          heldUntil: now + RESERVATION_HOLD_MS,
        },
        { costMicros: 0, images: 0 },
        now,
      );
    });
    this.tickets.set(requestId, {
      keyId: key.id,
      limits: key.limits,
      startedAt,
      held: true,
      released: false,
    });
    this.keepRenewing();
  }

  /**
   * The budget and images per day against what the request needs; on success the need is
   * reserved on the request's reservation. Throws a LimitError and reserves nothing otherwise.
   */
  async reserve(requestId: string, key: LimitedKey, demand: Demand, now: number): Promise<void> {
    const ticket = this.tickets.get(requestId);
    if (!ticket) return; // not admitted through the limits (a key without any)
    const { budgetMicros, budgetPeriod, imagesPerDay } = key.limits;
    // Nothing of the estimate is limited (requests per minute or an expiry only).
    if (budgetMicros === null && imagesPerDay === null) return;
    await this.ledger.decide(key.id, async (view) => {
      const used = (since: number) => view.used(key.id, since, now);
      if (budgetMicros !== null && budgetPeriod !== null) {
        const period = periodBounds(budgetPeriod, now);
        const spent = (await used(period.start)).costMicros;
        if (spent >= budgetMicros || spent + demand.costMicros > budgetMicros) {
          throw budgetExceeded(
            budgetPeriod,
            budgetMicros,
            spent,
            demand.costMicros,
            period.resetsAt,
            now,
          );
        }
      }
      // A request that asks for no image (a Responses call without the image tool) is not one.
      if (imagesPerDay !== null && demand.images > 0) {
        const day = periodBounds('day', now);
        const images = (await used(day.start)).images;
        if (images + demand.images > imagesPerDay) {
          throw imagesPerDayExceeded(imagesPerDay, images, demand.images, day.resetsAt!, now);
        }
      }
      if (ticket.held) await view.add(requestId, demand);
      else
        await view.hold(
          {
            requestId,
            keyId: key.id,
            startedAt: ticket.startedAt,
            owner: this.options.owner,
            heldUntil: now + RESERVATION_HOLD_MS,
          },
          demand,
          now,
        );
    });
    ticket.held = true;
    this.keepRenewing();
  }

  /**
   * Called once a handler has read and priced what the request asks for (its admission), before
   * any upstream call: throws the 429 of the limit its estimate would pass, else reserves it.
   * Nothing for a request that was not admitted through the limits (a key without any).
   */
  async reserveEstimate(
    requestId: string,
    key: LimitedKey,
    demand: Demand,
    now: number,
  ): Promise<void> {
    await this.reserve(requestId, key, demand, now);
  }

  /**
   * What ends the request's reservation inside the transaction that writes its usage row
   * (usage/writer.ts), so a limited request commits once for its limits (the reservation) rather
   * than twice (reservation, then release); null when it holds none. The row and the end of the
   * reservation commit together, as the ledger counts them (a reservation stops counting when its
   * request's row exists), so the request is counted once at every moment. A commit that fails
   * rolls both back: the writer keeps the record and writes it (and this) again later, and the
   * charge, which waits for the written row, finds the reservation gone.
   */
  releaseWithRecord(requestId: string): ((tx: SqlQueries) => Promise<void>) | null {
    const ticket = this.tickets.get(requestId);
    if (!ticket?.held) return null;
    return async (tx) => {
      await this.ledger.releaseWithin(tx, requestId);
      ticket.released = true;
    };
  }

  /**
   * The request's usage row is written (with `chargedMicros`; null when writing it failed): the
   * row now holds what the reservation held. Returns the budget alerts its cost raised.
   */
  async charge(
    requestId: string,
    chargedMicros: number | null,
    now: number,
  ): Promise<BudgetAlert[]> {
    const ticket = this.tickets.get(requestId);
    if (!ticket) return [];
    this.tickets.delete(requestId);
    this.keepRenewing();
    // Released once the row is written (the 'settled' event, after the reply): from the row's
    // commit on, the row counts and the reservation does not (ledger.ts), so the moment between
    // them counts the request once. Deleting it now keeps the key's open reservations as few as
    // its requests in flight, which each decision sums.
    // Ended already in the row's commit, unless the row was not written (that commit rolled back).
    if (ticket.held && (!ticket.released || chargedMicros === null))
      await this.ledger.release(requestId);
    const { budgetMicros, budgetPeriod } = ticket.limits;
    if (chargedMicros === null || budgetMicros === null || budgetPeriod === null) return [];
    // The request counts in the period it started in (as its usage row does).
    const period = periodBounds(budgetPeriod, ticket.startedAt);
    const spent = (await this.ledger.recorded(ticket.keyId, period.start)).costMicros;
    return budgetAlerts(
      { id: ticket.keyId, limits: ticket.limits },
      chargedMicros,
      () => spent,
      ticket.startedAt,
      now,
    );
  }

  /** What a key has used against its limits now (charged, and reserved by every instance). */
  use(key: LimitedKey, now: number): Promise<KeyLimitUse> {
    return keyLimitUse(this.ledger, key, now);
  }

  /** Requests admitted here and not yet charged (tests, shutdown checks). */
  get inFlight(): number {
    return this.tickets.size;
  }

  /** Stops renewing (the gateway is closing: its requests are over). */
  close(): void {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
  }

  /**
   * Renews this instance's reservations while it holds any. The timer, once started, stays until
   * `close` and skips its turns while nothing is held: stopping it whenever the last request was
   * charged cost every request of a key used one at a time a new timer.
   */
  private keepRenewing(): void {
    if (this.renewal || this.tickets.size === 0) return;
    this.renewal = setInterval(() => {
      if (this.tickets.size === 0) return;
      const now = this.options.now();
      this.ledger
        .renew(this.options.owner, now + RESERVATION_HOLD_MS, now)
        .catch((error: Error) =>
          this.options.log(`limit reservations could not be renewed: ${error.message}`),
        );
    }, RESERVATION_HOLD_MS / 3);
    this.renewal.unref();
  }
}

/**
 * A key's use: charged in the usage log, plus what requests in flight reserved (every instance's,
 * and the gateway's seen from the CLI, a process of its own).
 */
export async function keyLimitUse(
  ledger: LedgerView,
  key: LimitedKey,
  now: number,
): Promise<KeyLimitUse> {
  const { budgetMicros, budgetPeriod } = key.limits;
  const day = periodBounds('day', now);
  const budget =
    budgetMicros !== null && budgetPeriod !== null ? periodBounds(budgetPeriod, now) : null;
  const used = (since: number) => ledger.used(key.id, since, now);
  return {
    budgetUsedMicros: budget ? (await used(budget.start)).costMicros : null,
    budgetResetsAt: budget?.resetsAt ?? null,
    imagesToday: (await used(day.start)).images,
    requestsLastMinute: (await ledger.requestTimes(key.id, now - RPM_WINDOW_MS, now)).length,
  };
}
