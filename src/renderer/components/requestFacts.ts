import type { UsageListRecord, UsageRecord } from '../../shared/admin';
import { cancelledByCaller, deliveredDespiteLeaving, INTERRUPTED } from '../../shared/usageRecord';
import { formatCount, formatDateTime, formatLatency, formatUsd } from '../lib/format';

/**
 * A request as the tables show it: the usage record, and what the gallery kept from it when the
 * list says (GET /api/admin/usage does; the live log's events do not).
 */
export type RequestRecord = UsageRecord & Partial<Pick<UsageListRecord, 'keptImageIds' | 'prompt'>>;

export interface StatusView {
  /** What the status cell says. */
  text: string;
  tone: 'ok' | 'error' | 'off';
  /** A short note beside it (an error code, or why a delivered request has a 499). */
  note: string | null;
  /** On hover: the full story, with the HTTP status where the text does not show it. */
  title: string | null;
}

/**
 * The status as a person reads it. A caller that left before the answer was complete is recorded
 * as 499, but when its image was made (billed, and kept in the gallery) the request did its work:
 * it reads "delivered" with the 499 on hover and in the details, not as a red failure.
 */
export function statusView(r: RequestRecord): StatusView {
  if (r.errorCode === INTERRUPTED) {
    return { text: 'interrupted', tone: 'error', note: null, title: r.errorMessage };
  }
  if (leftEarlyDelivered(r)) {
    const kept = (r.keptImageIds?.length ?? 0) > 0;
    return {
      text: 'delivered',
      tone: 'ok',
      note: 'client left early',
      title:
        `HTTP ${r.status}${r.errorCode ? ` ${r.errorCode}` : ''}: the caller closed the ` +
        `connection before the answer was complete, but the image was made and billed` +
        (kept ? ' and is kept in the Gallery.' : '.'),
    };
  }
  if (cancelledByCaller(r)) {
    // The person's own Cancel (or an app that hung up) before any image: not a failure.
    return {
      text: 'cancelled',
      tone: 'off',
      note: null,
      title: `HTTP ${r.status} ${r.errorCode}: cancelled by the caller before an image was made.`,
    };
  }
  const ok = r.status < 400;
  return {
    text: String(r.status),
    tone: ok ? 'ok' : 'error',
    note: r.errorCode,
    title: r.errorMessage,
  };
}

/** A 499 whose images the upstream delivered anyway. */
export const leftEarlyDelivered = deliveredDespiteLeaving;

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
export function requestFacts(r: RequestRecord): RequestFact[] {
  const facts: RequestFact[] = [{ id: 'request', label: 'Request id', value: r.requestId }];
  if (leftEarlyDelivered(r)) {
    facts.push({
      id: 'status',
      label: 'Status',
      value: `${r.status} ${[r.errorCode, r.errorMessage].filter(Boolean).join(': ')}; the image was still made and billed`,
    });
  } else if (r.errorCode || r.errorMessage) {
    facts.push({
      id: 'error',
      label: 'Error',
      value: [r.errorCode, r.errorMessage].filter(Boolean).join(': '),
    });
  }
  if (r.prompt) facts.push({ id: 'prompt', label: 'Prompt', value: r.prompt });
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
      value:
        formatUsd(r.costMicros) +
        (r.priceModel ? ` at ${r.priceModel} prices` : '') +
        (r.estimated ? ' (estimated: the upstream gave no usable figures)' : ''),
    },
    { id: 'key', label: 'Key', value: `${orDash(r.apiKeyName)} · group ${orDash(r.groupName)}` },
    { id: 'account', label: 'Account', value: orDash(r.upstreamAccountName) },
  );
  // The upstream's own id for its answer: on a desktop joined to a team gateway, its row there.
  if (r.upstreamRequestId) {
    facts.push({ id: 'upstreamRequest', label: 'Upstream request', value: r.upstreamRequestId });
  }
  if (r.user) facts.push({ id: 'user', label: 'User', value: r.user });
  return facts;
}
