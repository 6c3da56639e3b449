import type { BudgetAlert } from '../../shared/admin';
import { budgetAlerts } from './budgetAlerts';
import type { Demand } from './demand';
import type { KeyLimits } from './keyLimits';
import type { UsageLedger } from './ledger';
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
  /** Reserved against the budget and the images per day; 0 until `reserve`. */
  costMicros: number;
  images: number;
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
 * Enforces a key's limits before any upstream work, exactly, across concurrent requests.
 *
 * What is charged comes from the usage log (ledger.ts); what is in flight lives here, one ticket
 * per admitted request, holding the request's estimate until its usage row is written. A check
 * and its reservation run in one synchronous step, so no two requests can both take the last of a
 * budget; and since `charge` drops the ticket in the same step that wrote the row, a request is
 * never counted twice nor missed. The real cost then replaces the estimate, so concurrent
 * requests overshoot a budget by at most what their estimates fell short of the real cost.
 */
export class KeyLimiter {
  private readonly tickets = new Map<string, Ticket>();

  constructor(private readonly ledger: UsageLedger) {}

  /** Expiry (any request). Throws the 401 that says so. */
  checkExpiry(key: LimitedKey, now: number): void {
    const { expiresAt } = key.limits;
    if (expiresAt !== null && now >= expiresAt) throw keyExpired(expiresAt);
  }

  /**
   * Requests per minute, then a ticket: from here the request counts as in flight until `charge`.
   * Throws a LimitError (nothing is taken) when the key is at its limit.
   */
  admit(requestId: string, key: LimitedKey, startedAt: number, now: number): void {
    const { rpmLimit } = key.limits;
    if (rpmLimit !== null) {
      const since = now - RPM_WINDOW_MS;
      const times = this.requestTimes(key.id, since);
      if (times.length >= rpmLimit) {
        times.sort((a, b) => a - b);
        // The window frees a place once the oldest request of the last `rpmLimit` leaves it.
        const freedAt = times[times.length - rpmLimit]! + RPM_WINDOW_MS;
        throw requestsPerMinuteExceeded(rpmLimit, times.length, freedAt, now);
      }
    }
    this.tickets.set(requestId, {
      keyId: key.id,
      limits: key.limits,
      startedAt,
      costMicros: 0,
      images: 0,
    });
  }

  /**
   * The budget and images per day against what the request needs; on success the need is
   * reserved on the request's ticket. Throws a LimitError and reserves nothing otherwise.
   */
  reserve(requestId: string, key: LimitedKey, demand: Demand, now: number): void {
    const ticket = this.tickets.get(requestId);
    if (!ticket) return; // not admitted through the limits (a key without any)
    const { budgetMicros, budgetPeriod, imagesPerDay } = key.limits;
    if (budgetMicros !== null && budgetPeriod !== null) {
      const period = periodBounds(budgetPeriod, now);
      const used =
        this.ledger.since(key.id, period.start).costMicros +
        this.reserved(key.id, period.start, 'costMicros');
      if (used >= budgetMicros || used + demand.costMicros > budgetMicros) {
        throw budgetExceeded(
          budgetPeriod,
          budgetMicros,
          used,
          demand.costMicros,
          period.resetsAt,
          now,
        );
      }
    }
    // A request that asks for no image (a Responses call without the image tool) is not one.
    if (imagesPerDay !== null && demand.images > 0) {
      const day = periodBounds('day', now);
      const used =
        this.ledger.since(key.id, day.start).images + this.reserved(key.id, day.start, 'images');
      if (used + demand.images > imagesPerDay) {
        throw imagesPerDayExceeded(imagesPerDay, used, demand.images, day.resetsAt!, now);
      }
    }
    ticket.costMicros += demand.costMicros;
    ticket.images += demand.images;
  }

  /**
   * Called once a handler has read and priced what the request asks for (its admission), before
   * any upstream call: throws the 429 of the limit its estimate would pass, else reserves it.
   * Nothing for a request that was not admitted through the limits (a key without any).
   */
  reserveEstimate(requestId: string, key: LimitedKey, demand: Demand, now: number): void {
    if (!this.tickets.has(requestId)) return;
    this.reserve(requestId, key, demand, now);
  }

  /**
   * The request's usage row is written (with `chargedMicros`; null when writing it failed): the
   * row now holds what the ticket reserved. Returns the budget alerts its cost raised.
   */
  charge(requestId: string, chargedMicros: number | null, now: number): BudgetAlert[] {
    const ticket = this.tickets.get(requestId);
    if (!ticket) return [];
    this.tickets.delete(requestId);
    if (chargedMicros === null) return [];
    return budgetAlerts(
      { id: ticket.keyId, limits: ticket.limits },
      chargedMicros,
      (since) => this.ledger.since(ticket.keyId, since).costMicros,
      ticket.startedAt,
      now,
    );
  }

  /** What a key has used against its limits now (charged and reserved). */
  use(key: LimitedKey, now: number): KeyLimitUse {
    return keyLimitUse(this.ledger, key, now, {
      reserved: (since, field) => this.reserved(key.id, since, field),
      requestTimes: (since) => this.requestTimes(key.id, since),
    });
  }

  /** Requests admitted and not yet charged (tests, shutdown checks). */
  get inFlight(): number {
    return this.tickets.size;
  }

  /**
   * Start times of the key's requests after `since`, each counted once: by its usage row once
   * written, by its ticket until then (a row that exists while its ticket does, such as a pending
   * one, is the ticket's).
   */
  private requestTimes(keyId: string, since: number): number[] {
    const times = this.ledger
      .requestsSince(keyId, since)
      .filter((row) => !this.tickets.has(row.requestId))
      .map((row) => row.createdAt);
    for (const ticket of this.tickets.values()) {
      if (ticket.keyId === keyId && ticket.startedAt > since) times.push(ticket.startedAt);
    }
    return times;
  }

  private reserved(keyId: string, since: number, field: 'costMicros' | 'images'): number {
    let sum = 0;
    for (const ticket of this.tickets.values()) {
      if (ticket.keyId === keyId && ticket.startedAt >= since) sum += ticket[field];
    }
    return sum;
  }
}

/**
 * A key's use from the usage log alone, plus what `reserved` adds (the CLI, a process of its own,
 * sees no reservations: only what is charged).
 */
export function keyLimitUse(
  ledger: UsageLedger,
  key: LimitedKey,
  now: number,
  inFlight: {
    reserved: (since: number, field: 'costMicros' | 'images') => number;
    requestTimes: (since: number) => number[];
  } = {
    reserved: () => 0,
    requestTimes: (since) => ledger.requestsSince(key.id, since).map((row) => row.createdAt),
  },
): KeyLimitUse {
  const { reserved } = inFlight;
  const { budgetMicros, budgetPeriod } = key.limits;
  const day = periodBounds('day', now);
  const budget =
    budgetMicros !== null && budgetPeriod !== null ? periodBounds(budgetPeriod, now) : null;
  return {
    budgetUsedMicros: budget
      ? ledger.since(key.id, budget.start).costMicros + reserved(budget.start, 'costMicros')
      : null,
    budgetResetsAt: budget?.resetsAt ?? null,
    imagesToday: ledger.since(key.id, day.start).images + reserved(day.start, 'images'),
    requestsLastMinute: inFlight.requestTimes(now - RPM_WINDOW_MS).length,
  };
}
