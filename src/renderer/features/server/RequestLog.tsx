import { Fragment } from 'react';
import { describeModel } from '../../../shared/models';
import type { UsageRecord } from '../../../shared/admin';
import {
  ExpandButton,
  RequestDetails,
  SizeCell,
  StatusCell,
} from '../../components/RequestDetails';
import { formatCount, formatLatency, formatUsd, formatWhen } from '../../lib/format';
import { useNow, useToggleSet } from '../../lib/hooks';
import { shortEndpoint } from '../../components/requestFacts';
import './server.css';

/** Columns of a row, for the details row under it. */
const COLUMNS = 11;

interface RequestLogProps {
  records: readonly UsageRecord[];
  live: boolean;
}

/** The newest requests first: what other apps (and the studio) asked, and how it went. */
export function RequestLog({ records, live }: RequestLogProps) {
  const [open, toggle] = useToggleSet();
  const now = useNow(60_000);
  return (
    <div
      className="table-wrap request-log log-table-wrap"
      data-testid="request-log"
      data-live={live}
    >
      <table className="data-table requests-table">
        <caption className="visually-hidden">Live request log, newest first</caption>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Details</span>
            </th>
            <th scope="col">Time</th>
            <th scope="col">Status</th>
            <th scope="col" className="col-endpoint">
              Endpoint
            </th>
            <th scope="col">Model</th>
            <th scope="col" className="col-size">
              Size
            </th>
            <th scope="col">Key</th>
            <th scope="col" className="col-account">
              Account
            </th>
            <th scope="col" className="num col-latency">
              Latency
            </th>
            <th scope="col" className="num">
              Tokens
            </th>
            <th scope="col" className="num">
              Cost
            </th>
          </tr>
        </thead>
        <tbody aria-live="polite" aria-relevant="additions">
          {records.map((r) => (
            <Fragment key={r.requestId}>
              <tr data-testid="log-row" data-request-id={r.requestId}>
                <td>
                  <ExpandButton
                    expanded={open.has(r.requestId)}
                    requestId={r.requestId}
                    controls={`log-details-${r.requestId}`}
                    onToggle={() => toggle(r.requestId)}
                    testId="log-expand"
                  />
                </td>
                <td className="mono">{formatWhen(r.createdAt, now)}</td>
                <StatusCell record={r} />
                <td className="mono col-endpoint" title={r.endpoint}>
                  {shortEndpoint(r.endpoint)}
                </td>
                <td title={describeModel(r.model) ?? undefined}>{r.model ?? '—'}</td>
                <SizeCell record={r} className="col-size" />
                <td>{r.apiKeyName ?? '—'}</td>
                <td className="col-account">{r.upstreamAccountName ?? '—'}</td>
                <td className="num col-latency">{formatLatency(r.latencyMs)}</td>
                <td className="num">{formatCount(r.totalTokens)}</td>
                <td className="num">{formatUsd(r.costMicros)}</td>
              </tr>
              {open.has(r.requestId) && (
                <tr className="details-row">
                  <td colSpan={COLUMNS}>
                    <RequestDetails record={r} id={`log-details-${r.requestId}`} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {records.length === 0 && (
        <p className="empty-state">
          No requests yet. They appear here the moment they finish, from the studio and from any
          app.
        </p>
      )}
    </div>
  );
}
