import { useEffect, useState } from 'react';
import type { UsageRecord } from '../../../shared/admin';
import { admin } from '../../lib/api/admin';
import type { RunRequest, RunState } from '../../stores/run';

/**
 * How long a run can be expected to take: the median latency of the gateway's recent successful
 * requests of the same endpoint, size and quality (the usage log knows each one's). Null without
 * any such request to go by; `basis` says how many it is the median of.
 */
export interface Expected {
  ms: number;
  basis: number;
}

export function expectedLatency(
  records: readonly Pick<UsageRecord, 'size' | 'quality' | 'latencyMs' | 'status'>[],
  size: string,
  quality: string | null,
): Expected | null {
  const same = records
    .filter(
      (r) =>
        r.status < 400 &&
        r.size === size &&
        (quality === null || (r.quality ?? 'auto') === quality),
    )
    .map((r) => r.latencyMs)
    .sort((a, b) => a - b);
  if (same.length === 0) return null;
  const mid = Math.floor(same.length / 2);
  const ms = same.length % 2 ? same[mid]! : (same[mid - 1]! + same[mid]!) / 2;
  return { ms, basis: same.length };
}

/** The quality a run asked for, from its JSON body or its form. */
export function requestQuality(request: RunRequest): string | null {
  const { body } = request.call;
  const value = body instanceof FormData ? body.get('quality') : body.quality;
  return typeof value === 'string' ? value : null;
}

/** Loads the expected time of `run` when it starts (from the usage log, before this run joins it). */
export function useExpectedTime(run: RunState): Expected | null {
  const { request, startedAt } = run;
  const key = request && startedAt !== null ? `${startedAt}` : null;
  const [state, setState] = useState<{ key: string; value: Expected | null } | null>(null);
  useEffect(() => {
    if (!key || !request) return;
    const controller = new AbortController();
    const quality = requestQuality(request);
    admin.usage({ status: 'success', limit: 300 }, controller.signal).then(
      (page) => {
        // The log writes the endpoint as the route ("/images/edits"); match on its end.
        const same = page.records.filter((r) =>
          r.endpoint.endsWith(`/images/${request.call.endpoint}`),
        );
        setState({ key, value: expectedLatency(same, request.requestedSize, quality) });
      },
      () => {
        if (!controller.signal.aborted) setState({ key, value: null });
      },
    );
    return () => controller.abort();
  }, [key, request]);
  return state?.key === key ? state.value : null;
}
