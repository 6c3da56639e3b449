import type { GatewayEvents } from './core/events';
import type { ApiKeyRecord } from './keys/repository';
import { KeyLimiter } from './limits/limiter';
import { limitsOf } from './limits/keyLimits';
import type { UsageLedger } from './limits/ledger';
import { chargeLimitsOnUsage } from './limits/chargeOnUsage';
import type { PricesRepository } from './storage/pricesRepository';
import { createInflight } from './usage/inflight';
import { createRejectedCounter } from './usage/rejected';
import type { UsageRepository } from './usage/repository';
import { openUsageWriter } from './usage/writer';

/**
 * Usage and limits: the requests in flight, the usage writer (each request's record, once), the
 * count of refused requests, and each key's limits charged from the records. Started before the
 * studio's side, so a request's reservation is charged before its images are written, and
 * stopped after it, so the gallery's last writes still find the writer's run open.
 */
export async function composeUsage(deps: {
  usage: UsageRepository;
  usageLedger: UsageLedger;
  /** This gateway instance (the owner of its limit reservations). */
  instance: string;
  prices: Pick<PricesRepository, 'get'>;
  events: GatewayEvents;
  now: () => number;
  log: (line: string) => void;
}) {
  const { events, now } = deps;
  const limiter = new KeyLimiter(deps.usageLedger, {
    owner: deps.instance,
    now,
    log: deps.log,
  });
  // Heard before the gallery: a request's reservation is charged before its images are written.
  chargeLimitsOnUsage(events, limiter, now, deps.log);
  const rejected = createRejectedCounter(now);
  const writer = await openUsageWriter({
    repository: deps.usage,
    priceFor: deps.prices.get,
    events,
    rejected,
    // A limited request's reservation ends in its record's commit, not in a commit of its own.
    reservations: limiter,
    now,
    log: deps.log,
  });
  return {
    limiter,
    rejected,
    inflight: createInflight(),
    writer,
    /** A key's use against its limits now (the keys page, the MCP spend tool). */
    keyLimitUse: (record: ApiKeyRecord) =>
      limiter.use({ id: record.id, limits: limitsOf(record) }, now()),
    stop: () => {
      writer.close();
      limiter.close();
    },
  };
}
