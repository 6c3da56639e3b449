import { Fragment } from 'react';
import type { UsageListResponse } from '../../../shared/admin';
import { describeModel } from '../../../shared/models';
import {
  ExpandButton,
  RequestDetails,
  SizeCell,
  StatusCell,
} from '../../components/RequestDetails';
import { formatCount, formatLatency, formatUsd, formatWhen } from '../../lib/format';
import { useNow, useToggleSet } from '../../lib/hooks';
import { shortEndpoint } from '../../components/requestFacts';

/** Columns of a row, for the details row under it. */
const COLUMNS = 12;

interface UsageTableProps {
  data: UsageListResponse | null;
  offset: number;
  pageSize: number;
  onPage: (offset: number) => void;
  /** The range spans days: every time carries its date (a day's view may show times alone). */
  datesAlways?: boolean;
}

/**
 * One row per request, newest first, with paging. On a narrow window the secondary columns
 * (endpoint, account, then latency and images) give way to cost; a row's details still have them.
 */
export function UsageTable({ data, offset, pageSize, onPage, datesAlways }: UsageTableProps) {
  const [open, toggle] = useToggleSet();
  const now = useNow(60_000);
  const records = data?.records ?? [];
  const total = data?.total ?? 0;
  const last = Math.min(total, offset + records.length);
  return (
    <div className="table-wrap usage-table-wrap">
      <table className="data-table requests-table" data-testid="usage-table" data-total={total}>
        <caption className="visually-hidden">Requests, newest first</caption>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Details</span>
            </th>
            <th scope="col">Time</th>
            <th scope="col" className="col-endpoint">
              Endpoint
            </th>
            <th scope="col">Model</th>
            <th scope="col">Size</th>
            <th scope="col" className="num col-images">
              Images
            </th>
            <th scope="col">Key</th>
            <th scope="col" className="col-account">
              Account
            </th>
            <th scope="col">Status</th>
            <th scope="col" className="num col-latency">
              Latency
            </th>
            <th scope="col" className="num">
              Tokens in / out
            </th>
            <th scope="col" className="num">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {records.map((r) => (
            <Fragment key={r.requestId}>
              <tr
                data-testid="usage-row"
                data-request-id={r.requestId}
                data-total-tokens={r.totalTokens}
                data-cost-micros={r.costMicros}
              >
                <td>
                  <ExpandButton
                    expanded={open.has(r.requestId)}
                    requestId={r.requestId}
                    controls={`usage-details-${r.requestId}`}
                    onToggle={() => toggle(r.requestId)}
                    testId="usage-expand"
                  />
                </td>
                <td className="mono usage-time" data-testid="usage-time">
                  {formatWhen(r.createdAt, now, datesAlways)}
                </td>
                <td className="mono col-endpoint" title={r.endpoint}>
                  {shortEndpoint(r.endpoint)}
                </td>
                <td title={describeModel(r.model) ?? undefined}>{r.model ?? '—'}</td>
                <SizeCell record={r} />
                <td className="num col-images">{r.images}</td>
                <td>{r.apiKeyName ?? '—'}</td>
                <td className="col-account">{r.upstreamAccountName ?? '—'}</td>
                <StatusCell record={r} />
                <td className="num col-latency">{formatLatency(r.latencyMs)}</td>
                <td className="num">
                  <span data-testid="usage-input-tokens">{formatCount(r.inputTokens)}</span>
                  {' / '}
                  <span data-testid="usage-output-tokens">{formatCount(r.outputTokens)}</span>
                </td>
                <td className="num" data-testid="usage-cost">
                  {formatUsd(r.costMicros)}
                  {r.estimated && (
                    <span
                      className="muted"
                      data-testid="usage-estimated"
                      title="Billed at the gateway's estimate: the upstream reported no usage or an impossible one, or the gateway stopped mid-request"
                    >
                      {' '}
                      (estimated)
                    </span>
                  )}
                </td>
              </tr>
              {open.has(r.requestId) && (
                <tr className="details-row">
                  <td colSpan={COLUMNS}>
                    <RequestDetails record={r} id={`usage-details-${r.requestId}`} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {data && records.length === 0 && (
        <p className="empty-state">No request matches these filters.</p>
      )}
      <nav className="pager" aria-label="Pages of requests">
        <span data-testid="usage-range">
          {total === 0 ? 'No requests' : `${offset + 1}–${last} of ${formatCount(total)}`}
        </span>
        <div>
          <button
            type="button"
            disabled={offset === 0}
            onClick={() => onPage(Math.max(0, offset - pageSize))}
          >
            Newer
          </button>
          <button
            type="button"
            disabled={last >= total}
            onClick={() => onPage(offset + pageSize)}
            data-testid="usage-next"
          >
            Older
          </button>
        </div>
      </nav>
    </div>
  );
}
