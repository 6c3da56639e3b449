import type { UsageRecord } from '../../shared/admin';
import { INTERRUPTED } from '../../shared/usageRecord';
import { CopyButton } from './CopyButton';
import { requestFacts } from './requestFacts';

/** One request's facts, shown under its row in the usage table and the live log. */
export function RequestDetails({ record, id }: { record: UsageRecord; id: string }) {
  return (
    <dl className="request-details" id={id} data-testid="request-details">
      {requestFacts(record).map((fact) => (
        <div key={fact.id} data-fact={fact.id}>
          <dt>{fact.label}</dt>
          <dd className={fact.id === 'request' ? 'mono' : undefined}>
            {fact.value}
            {fact.id === 'request' && <CopyButton text={fact.value} label="Copy the request id" />}
          </dd>
        </div>
      ))}
    </dl>
  );
}

interface ExpandButtonProps {
  expanded: boolean;
  requestId: string;
  controls: string;
  onToggle: () => void;
  testId: string;
}

/** The disclosure at the start of a request row. */
export function ExpandButton({
  expanded,
  requestId,
  controls,
  onToggle,
  testId,
}: ExpandButtonProps) {
  return (
    <button
      type="button"
      className="icon-button row-expand"
      aria-expanded={expanded}
      aria-controls={expanded ? controls : undefined}
      aria-label={`Details of request ${requestId}`}
      onClick={onToggle}
      data-testid={testId}
    >
      {expanded ? '▾' : '▸'}
    </button>
  );
}

/** The asked size, and what was delivered where it differs (with the ladder step that made it). */
export function SizeCell({ record }: { record: UsageRecord }) {
  return (
    <td className="mono">
      {record.size ?? '—'}
      {record.deliveredSize && record.deliveredSize !== record.size && (
        <span className="warn" title="Delivered size">
          {' '}
          → {record.deliveredSize}
        </span>
      )}
      {record.fallbackStep && <span className="muted"> ({record.fallbackStep})</span>}
    </td>
  );
}

/**
 * The HTTP status, coloured, with the error code beside a failure (its message on hover). A request
 * the gateway never answered (it stopped first) says so instead of a status nobody received.
 */
export function StatusCell({ record }: { record: UsageRecord }) {
  const interrupted = record.errorCode === INTERRUPTED;
  return (
    <td>
      <span
        className={`status ${record.status < 400 ? 'status-ok' : 'status-error'}`}
        title={record.errorMessage ?? undefined}
      >
        {interrupted ? 'interrupted' : record.status}
      </span>
      {record.errorCode && !interrupted && <span className="muted"> {record.errorCode}</span>}
    </td>
  );
}
