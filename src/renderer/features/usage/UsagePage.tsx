import { lazy, Suspense, useEffect, useState } from 'react';
import type { UsageGroupBy, UsageTotal } from '../../../shared/admin';
import { IMAGE_MODELS } from '../../../shared/models';
import { ErrorNotice } from '../../components/ErrorNotice';
import { SelectField, Segmented } from '../../components/fields';
import { Page } from '../../components/Page';
import { formatCompact, formatCount, formatUsd } from '../../lib/format';
import { admin } from '../../lib/api/admin';
import { adminUrls } from '../../lib/api/urls';
import type { UsageFilters } from '../../lib/api/usage';
import { subscribeAdminEvents } from '../../lib/api/adminEvents';
import { useResource } from '../../lib/hooks';
import {
  daySeries,
  groupSeries,
  METRICS,
  RANGES,
  rangeSince,
  utcOffsetMinutes,
  type MetricId,
  type RangeId,
} from './usageQuery';
import { performanceBucket } from './spendAtAGlance';
import { KeyBudgets, Performance } from './SpendPanels';
import { UsageTable } from './UsageTable';
import '../../components/admin.css';
import './usage.css';

// Chart.js is loaded with the page that draws charts, not with the studio's first screen.
const UsageChart = lazy(() => import('./UsageChart').then((m) => ({ default: m.UsageChart })));

const PAGE_SIZE = 25;
const ENDPOINTS = ['/images/generations', '/images/edits', '/responses'];
const FORMATS: Record<MetricId, (value: number) => string> = {
  cost: formatUsd,
  tokens: formatCompact,
  requests: formatCount,
};

type StatusFilter = '' | 'success' | 'error' | 'cancelled';

interface TableFilters {
  apiKeyId: string;
  model: string;
  endpoint: string;
  status: StatusFilter;
}

const NO_FILTERS: TableFilters = { apiKeyId: '', model: '', endpoint: '', status: '' };

/** Spend and tokens over time and by model, key and account; every request; CSV export. */
export function UsagePage() {
  const [range, setRange] = useState<RangeId>('7d');
  const [metric, setMetric] = useState<MetricId>('cost');
  const [filters, setFilters] = useState<TableFilters>(NO_FILTERS);
  /** An upstream account's id, or '' for all: narrows the totals, the table and the latencies. */
  const [account, setAccount] = useState('');
  /** Bumped when a new request is logged, for the panels that read again then. */
  const [version, setVersion] = useState(0);
  const [offset, setOffset] = useState(0);
  // Fixed per range choice, so the queries stay the same between renders.
  const [anchor, setAnchor] = useState(() => Date.now());
  const since = rangeSince(range, anchor);
  const offsetMinutes = utcOffsetMinutes(anchor);

  const totals = useResource(async (signal) => {
    const groups: Array<UsageGroupBy | undefined> = [undefined, 'day', 'model', 'key', 'account'];
    const [all, day, model, key, byAccount] = await Promise.all(
      groups.map((groupBy) =>
        admin.usageTotals(
          { groupBy, since, utcOffsetMinutes: offsetMinutes, account: account || undefined },
          signal,
        ),
      ),
    );
    return { all: all?.[0] ?? null, day: day!, model: model!, key: key!, account: byAccount! };
  }, `${range}:${anchor}:${account}`);

  const query: UsageFilters = {
    since,
    apiKeyId: filters.apiKeyId || undefined,
    account: account || undefined,
    model: filters.model || undefined,
    endpoint: filters.endpoint || undefined,
    status: filters.status || undefined,
  };
  const queryKey = JSON.stringify(query);
  const table = useResource(
    (signal) => admin.usage({ ...query, limit: PAGE_SIZE, offset }, signal),
    `${queryKey}:${offset}`,
  );
  const keys = useResource((signal) => admin.keys(signal), String(version));
  const accounts = useResource((signal) => admin.accounts(signal));

  // New requests refresh the page (at most once a second).
  const reloadTotals = totals.reload;
  const reloadTable = table.reload;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const stop = subscribeAdminEvents({
      onUsage: () => {
        timer ??= setTimeout(() => {
          timer = null;
          reloadTotals();
          reloadTable();
          setVersion((v) => v + 1);
        }, 1000);
      },
    });
    return () => {
      stop();
      if (timer) clearTimeout(timer);
    };
  }, [reloadTotals, reloadTable]);

  const setFilter = (patch: Partial<TableFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setOffset(0);
  };

  const format = FORMATS[metric];
  const data = totals.data;
  const models = [
    ...new Set([...(data?.model ?? []).flatMap((r) => (r.key ? [r.key] : [])), ...IMAGE_MODELS]),
  ];
  return (
    <Page
      id="usage"
      title="Usage"
      description="What every request cost, by day, model, key and account; budgets, latency and success."
      ready={totals.loaded && table.loaded && keys.loaded && accounts.loaded}
      actions={
        <a
          className="button-link"
          href={adminUrls.usageCsv(query)}
          download="atelier-usage.csv"
          data-testid="usage-csv"
        >
          Export CSV
        </a>
      }
    >
      <div className="toolbar">
        <Segmented
          label="Time range"
          value={range}
          options={RANGES}
          onChange={(r) => {
            setRange(r);
            setAnchor(Date.now());
            setOffset(0);
          }}
          testId="usage-range-choice"
        />
        <Segmented
          label="Charts show"
          value={metric}
          options={METRICS}
          onChange={setMetric}
          testId="usage-metric"
        />
        <SelectField
          label="Account"
          value={account}
          options={[
            { value: '', label: 'All accounts' },
            { value: 'simulator', label: 'Built-in simulator' },
            ...(accounts.data?.accounts ?? []).map((a) => ({ value: a.id, label: a.name })),
          ]}
          onChange={(next) => {
            setAccount(next);
            setOffset(0);
          }}
          testId="usage-filter-account"
        />
      </div>
      {totals.error && <ErrorNotice error={totals.error} onRetry={totals.reload} />}
      <Summary row={data?.all ?? null} />
      {keys.data && <KeyBudgets keys={keys.data} now={anchor} />}
      {data && (
        <Suspense fallback={<p className="muted">Loading charts…</p>}>
          <div className="chart-grid">
            <UsageChart
              title="By day"
              series={daySeries(data.day, metric, since, anchor)}
              format={format}
              testId="chart-day"
            />
            <UsageChart
              title="By model"
              series={groupSeries(data.model, metric, 'unknown model')}
              format={format}
              horizontal
              testId="chart-model"
            />
            <UsageChart
              title="By key"
              series={groupSeries(data.key, metric, 'no key')}
              format={format}
              horizontal
              testId="chart-key"
            />
            <UsageChart
              title="By account"
              series={groupSeries(data.account, metric, 'no account')}
              format={format}
              horizontal
              testId="chart-account"
            />
          </div>
        </Suspense>
      )}

      <Performance
        since={since}
        bucket={performanceBucket(range)}
        utcOffsetMinutes={offsetMinutes}
        account={account || undefined}
        version={version}
      />

      <section aria-labelledby="usage-requests">
        <div className="section-header">
          <h2 id="usage-requests">Requests</h2>
        </div>
        <div className="toolbar usage-filters">
          <SelectField
            label="Key"
            value={filters.apiKeyId}
            options={[
              { value: '', label: 'All keys' },
              ...(keys.data ?? []).map((k) => ({ value: k.id, label: k.name })),
            ]}
            onChange={(apiKeyId) => setFilter({ apiKeyId })}
            testId="usage-filter-key"
          />
          <SelectField
            label="Model"
            value={filters.model}
            options={[
              { value: '', label: 'All models' },
              ...models.map((m) => ({ value: m, label: m })),
            ]}
            onChange={(model) => setFilter({ model })}
            testId="usage-filter-model"
          />
          <SelectField
            label="Endpoint"
            value={filters.endpoint}
            options={[
              { value: '', label: 'All endpoints' },
              ...ENDPOINTS.map((e) => ({ value: e, label: e })),
            ]}
            onChange={(endpoint) => setFilter({ endpoint })}
            testId="usage-filter-endpoint"
          />
          <SelectField<StatusFilter>
            label="Status"
            value={filters.status}
            options={[
              { value: '', label: 'Any status' },
              { value: 'success', label: 'Succeeded' },
              { value: 'error', label: 'Failed' },
              { value: 'cancelled', label: 'Cancelled' },
            ]}
            onChange={(status) => setFilter({ status })}
            testId="usage-filter-status"
          />
        </div>
        {table.error && <ErrorNotice error={table.error} onRetry={table.reload} />}
        <UsageTable
          data={table.data}
          offset={offset}
          pageSize={PAGE_SIZE}
          onPage={setOffset}
          datesAlways={range !== '24h'}
        />
      </section>
    </Page>
  );
}

function Summary({ row }: { row: UsageTotal | null }) {
  const items = [
    { label: 'Requests', value: formatCount(row?.requests ?? 0), id: 'requests' },
    { label: 'Failed', value: formatCount(row?.errors ?? 0), id: 'errors' },
    // The person's own cancels, apart: they are not failures (issue 22).
    { label: 'Cancelled', value: formatCount(row?.cancelled ?? 0), id: 'cancelled' },
    { label: 'Images', value: formatCount(row?.images ?? 0), id: 'images' },
    { label: 'Input tokens', value: formatCount(row?.inputTokens ?? 0), id: 'input-tokens' },
    { label: 'Output tokens', value: formatCount(row?.outputTokens ?? 0), id: 'output-tokens' },
    { label: 'Cost', value: formatUsd(row?.costMicros ?? 0), id: 'cost' },
  ];
  return (
    <dl className="stat-cards" data-testid="usage-summary">
      {items.map((item) => (
        <div key={item.id} className="stat-card" data-testid={`usage-total-${item.id}`}>
          <dt>{item.label}</dt>
          <dd>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}
