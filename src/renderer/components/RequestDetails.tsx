import type { UsageRecord } from '../../shared/admin';
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
