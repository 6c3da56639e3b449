import { useState } from 'react';
import type { UsageRecord } from '../../shared/admin';
import { adminUrls } from '../lib/api/urls';
import { CopyButton } from './CopyButton';
import { LazyImageViewer } from './LazyImageViewer';
import { requestFacts, statusView, type RequestRecord } from './requestFacts';

/**
 * One request's facts, shown under its row in the usage table and the live log: with the prompt
 * and the kept images (thumbnails that open the viewer) when the usage list names them.
 */
export function RequestDetails({ record, id }: { record: RequestRecord; id: string }) {
  const kept = record.keptImageIds ?? [];
  const [viewing, setViewing] = useState<number | null>(null);
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
      {kept.length > 0 && (
        <div data-fact="kept">
          <dt>{kept.length === 1 ? 'Kept image' : `Kept images (${kept.length})`}</dt>
          <dd className="kept-images">
            {kept.map((imageId, index) => (
              <button
                key={imageId}
                type="button"
                className="kept-thumb"
                title="Open in the viewer"
                aria-label={`Open kept image ${index + 1} of ${kept.length} in the viewer`}
                onClick={() => setViewing(index)}
                data-testid="kept-image"
                data-image-id={imageId}
              >
                <img src={adminUrls.thumb(imageId)} alt="" loading="lazy" />
              </button>
            ))}
          </dd>
        </div>
      )}
      {viewing !== null && (
        <LazyImageViewer
          items={kept.map((imageId, index) => ({
            key: imageId,
            url: adminUrls.file(imageId),
            label: `Image ${index + 1} of ${kept.length} · request ${record.requestId}`,
          }))}
          index={viewing}
          onIndex={setViewing}
          onClose={() => setViewing(null)}
        />
      )}
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
export function SizeCell({ record, className }: { record: UsageRecord; className?: string }) {
  return (
    <td className={className ? `mono ${className}` : 'mono'}>
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
 * The status, coloured, with the error code beside a failure (its message on hover). A request
 * the gateway never answered (it stopped first) says so instead of a status nobody received; one
 * whose caller left after its image was made says "delivered" (statusView).
 */
export function StatusCell({ record }: { record: RequestRecord }) {
  const view = statusView(record);
  return (
    <td className="status-cell" data-testid="status-cell" data-status={record.status}>
      <span className={`status status-${view.tone}`} title={view.title ?? undefined}>
        {view.text}
      </span>
      {view.note && (
        <>
          {' '}
          <span className="muted status-note">{view.note}</span>
        </>
      )}
    </td>
  );
}
