import type { UsageRecord } from '../../shared/admin';
import { formatCount, formatDateTime, formatLatency, formatUsd } from '../lib/format';

export interface RequestFact {
  id: string;
  label: string;
  value: string;
}

/** '/images/generations' -> 'generations': the column is narrow, the details say it all. */
export function shortEndpoint(endpoint: string): string {
  return endpoint.replace(/^\/images\//, '');
}

const orDash = (value: string | null) => value ?? '—';

/**
 * Everything the usage log knows about one request, in words: what a developer whose app just
 * got an error, or a surprising bill, needs to see without opening the CSV.
 */
export function requestFacts(r: UsageRecord): RequestFact[] {
  const facts: RequestFact[] = [{ id: 'request', label: 'Request id', value: r.requestId }];
  if (r.errorCode || r.errorMessage) {
    facts.push({
      id: 'error',
      label: 'Error',
      value: [r.errorCode, r.errorMessage].filter(Boolean).join(': '),
    });
  }
  facts.push(
    { id: 'endpoint', label: 'Endpoint', value: `POST /v1${r.endpoint}` },
    { id: 'time', label: 'Started', value: formatDateTime(r.createdAt) },
    { id: 'latency', label: 'Took', value: formatLatency(r.latencyMs) },
    {
      id: 'asked',
      label: 'Asked for',
      value: [
        orDash(r.model),
        orDash(r.size),
        r.quality,
        r.outputFormat,
        `n=${r.n}`,
        r.stream ? 'streamed' : null,
      ]
        .filter(Boolean)
        .join(' · '),
    },
    {
      id: 'delivered',
      label: 'Delivered',
      value:
        `${r.images} image${r.images === 1 ? '' : 's'}` +
        (r.deliveredSize ? ` at ${r.deliveredSize}` : '') +
        (r.deliveredQuality ? `, ${r.deliveredQuality} quality` : '') +
        (r.fallbackStep ? ` (fallback: ${r.fallbackStep})` : ''),
    },
    {
      id: 'tokens',
      label: 'Tokens',
      value:
        `${formatCount(r.inputTokens)} in (${formatCount(r.inputTextTokens)} text, ` +
        `${formatCount(r.inputImageTokens)} image) · ${formatCount(r.outputTokens)} out ` +
        `(${formatCount(r.outputTextTokens)} text, ${formatCount(r.outputImageTokens)} image)`,
    },
    {
      id: 'cost',
      label: 'Cost',
      value: formatUsd(r.costMicros) + (r.priceModel ? ` at ${r.priceModel} prices` : ''),
    },
    { id: 'key', label: 'Key', value: `${orDash(r.apiKeyName)} · group ${orDash(r.groupName)}` },
    { id: 'account', label: 'Account', value: orDash(r.upstreamAccountName) },
  );
  if (r.user) facts.push({ id: 'user', label: 'User', value: r.user });
  return facts;
}
