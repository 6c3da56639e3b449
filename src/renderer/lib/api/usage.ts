/** The usage log (/api/admin/usage): its rows, totals and performance. */
import {
  usageListResponseSchema,
  usagePerformanceResponseSchema,
  usageTotalsResponseSchema,
  type UsageGroupBy,
} from '../../../shared/admin';
import { queryString, type Requester } from './request';

/** The filters of GET /api/admin/usage and /usage.csv. */
export interface UsageFilters {
  since?: number;
  until?: number;
  apiKeyId?: string;
  /** An upstream account's id (`simulator` for the built-in simulator). */
  account?: string;
  model?: string;
  endpoint?: string;
  status?: 'success' | 'error' | 'cancelled' | number;
}

export function usageApi(request: Requester) {
  return {
    usage: (filters: UsageFilters & { limit?: number; offset?: number }, signal?: AbortSignal) =>
      request.json(usageListResponseSchema, `/api/admin/usage${queryString({ ...filters })}`, {
        signal,
      }),
    usageTotals: async (
      query: {
        groupBy?: UsageGroupBy;
        since?: number;
        until?: number;
        utcOffsetMinutes?: number;
        apiKeyId?: string;
        account?: string;
      },
      signal?: AbortSignal,
    ) =>
      (
        await request.json(
          usageTotalsResponseSchema,
          `/api/admin/usage/totals${queryString({ ...query })}`,
          { signal },
        )
      ).rows,
    /** Latency percentiles and success rate over time, by key or account. */
    usagePerformance: (
      query: {
        groupBy?: 'key' | 'account';
        bucket?: 'hour' | 'day';
        since?: number;
        until?: number;
        apiKeyId?: string;
        account?: string;
        utcOffsetMinutes?: number;
      },
      signal?: AbortSignal,
    ) =>
      request.json(
        usagePerformanceResponseSchema,
        `/api/admin/usage/performance${queryString({ ...query })}`,
        { signal },
      ),
  };
}
