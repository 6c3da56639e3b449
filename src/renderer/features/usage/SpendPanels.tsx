import { useState } from 'react';
import type { KeyView, UsagePerformanceResponse } from '../../../shared/admin';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Segmented } from '../../components/fields';
import { formatCount, formatLatency } from '../../lib/format';
import { admin } from '../../lib/api/admin';
import { useResource } from '../../lib/hooks';
import { NavLink } from '../shell/NavLink';
import { bucketLabel, formatRate, keyBudgetRows } from './spendAtAGlance';

/** Each key's spend against its budget in the budget's current period (UTC days and months). */
export function KeyBudgets({ keys, now }: { keys: readonly KeyView[]; now: number }) {
  const rows = keyBudgetRows(keys, now);
  return (
    <section className="panel" aria-labelledby="usage-budgets" data-testid="usage-budgets">
      <h2 id="usage-budgets">Spend against budget</h2>
      {rows.length === 0 ? (
        <p className="muted">
          No key has a budget. Set one on the <NavLink to="/keys">Keys</NavLink> page, or the
          studio&apos;s own in <NavLink to="/settings">Settings</NavLink>.
        </p>
      ) : (
        <ul className="key-budgets">
          {rows.map((row) => (
            <li
              key={row.id}
              className={`key-budget budget-${row.tone}`}
              data-testid="usage-budget"
              data-key={row.id}
              data-percent={row.percent}
            >
              <span className="key-budget-name">
                {row.name}
                {row.builtIn && <span className="muted"> (the studio)</span>}
              </span>
              <span
                className="key-budget-bar"
                role="meter"
                aria-label={`${row.name}: budget spent`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={Math.min(100, row.percent)}
                aria-valuetext={row.label}
              >
                <span style={{ width: `${row.fill * 100}%` }} />
              </span>
              <span className="key-budget-label" data-testid="usage-budget-label">
                {row.label} · {row.percent} %
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

type PerformanceGroup = 'key' | 'account';

interface PerformanceProps {
  since: number | undefined;
  bucket: 'hour' | 'day';
  utcOffsetMinutes: number;
  account: string | undefined;
  /** Changes when the page's data should be read again (a new request was logged). */
  version: number;
}

/** Latency percentiles (successful requests) and success rate per day or hour, by key or account. */
export function Performance(props: PerformanceProps) {
  const [groupBy, setGroupBy] = useState<PerformanceGroup>('key');
  const query = {
    groupBy,
    bucket: props.bucket,
    since: props.since,
    utcOffsetMinutes: props.utcOffsetMinutes,
    account: props.account,
  };
  const result = useResource(
    (signal) => admin.usagePerformance(query, signal),
    `${JSON.stringify(query)}:${props.version}`,
  );
  return (
    <section className="panel" aria-labelledby="usage-performance" data-testid="usage-performance">
      <div className="section-header">
        <h2 id="usage-performance">Latency and success over time</h2>
        <Segmented
          label="Latency and success by"
          hideLabel
          value={groupBy}
          options={[
            { value: 'key', label: 'By key' },
            { value: 'account', label: 'By account' },
          ]}
          onChange={setGroupBy}
          testId="usage-performance-group"
        />
      </div>
      <p className="hint">
        Percentiles of the time to answer, over the requests that succeeded (nearest rank); success
        is the share answered below status 400.
      </p>
      {result.error && <ErrorNotice error={result.error} onRetry={result.reload} />}
      {result.data && <PerformanceTable data={result.data} groupBy={groupBy} />}
    </section>
  );
}

function PerformanceTable({
  data,
  groupBy,
}: {
  data: UsagePerformanceResponse;
  groupBy: PerformanceGroup;
}) {
  if (data.rows.length === 0) return <p className="muted">No requests in this range.</p>;
  const none = groupBy === 'key' ? 'no key' : 'no account';
  const ms = (value: number | null) => (value === null ? '—' : formatLatency(value));
  // Newest first: the latest hours or days are what a person checks.
  const rows = [...data.rows].reverse();
  return (
    <div className="table-wrap performance-wrap">
      <table className="data-table" data-testid="usage-performance-table">
        <thead>
          <tr>
            <th scope="col">{groupBy === 'key' ? 'Key' : 'Account'}</th>
            <th scope="col">When</th>
            <th scope="col" className="num">
              Requests
            </th>
            <th scope="col" className="num">
              Success
            </th>
            <th scope="col" className="num">
              p50
            </th>
            <th scope="col" className="num">
              p95
            </th>
            <th scope="col" className="num">
              p99
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={`${row.bucket}:${row.key ?? ''}`}
              data-testid="usage-performance-row"
              data-key={row.key ?? ''}
              data-bucket={row.bucket}
            >
              <th scope="row">{row.label ?? row.key ?? none}</th>
              <td>{bucketLabel(row.bucket)}</td>
              <td className="num">{formatCount(row.requests)}</td>
              <td className="num" data-testid="usage-performance-success">
                {formatRate(row.successRate)}
              </td>
              <td className="num">{ms(row.p50Ms)}</td>
              <td className="num">{ms(row.p95Ms)}</td>
              <td className="num">{ms(row.p99Ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.truncated && (
        <p className="muted">Only the first rows are shown: choose a shorter time range.</p>
      )}
    </div>
  );
}
