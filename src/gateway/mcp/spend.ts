import type { ApiKeyRecord } from '../keys/repository';
import type { KeyLimitUse } from '../limits/limiter';

const usd = (micros: number | null) => (micros === null ? null : micros / 1e6);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * get_spend's answer: what the key has spent (all time, as the Usage page counts it) and each of
 * its limits beside what is used of it now (reservations of requests in flight included), the
 * same figures the /keys page shows.
 */
export function spendReport(
  record: ApiKeyRecord,
  spent: { requests: number; costMicros: number; images: number },
  use: KeyLimitUse,
): Record<string, unknown> {
  return {
    key: { id: record.id, name: record.name, group: record.group },
    spent_usd: usd(spent.costMicros),
    requests: spent.requests,
    images: spent.images,
    limits: {
      budget:
        record.budgetMicros === null
          ? null
          : {
              limit_usd: usd(record.budgetMicros),
              period: record.budgetPeriod,
              used_usd: usd(use.budgetUsedMicros),
              resets_at: iso(use.budgetResetsAt),
            },
      requests_per_minute:
        record.rpmLimit === null ? null : { limit: record.rpmLimit, used: use.requestsLastMinute },
      images_per_day:
        record.imagesPerDay === null ? null : { limit: record.imagesPerDay, used: use.imagesToday },
      expires_at: iso(record.expiresAt),
    },
  };
}
