import { useState } from 'react';
import type { ImageRecord, StudioRun } from '../../../shared/admin';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { ViewerItem } from '../../components/ImageViewer';
import { LazyImageViewer } from '../../components/LazyImageViewer';
import { admin } from '../../lib/api/admin';
import { adminUrls } from '../../lib/api/urls';
import { gateway } from '../../lib/api/images';
import { formatDateTime, formatUsd } from '../../lib/format';
import { imageFileName, saveBlob } from '../../lib/files';
import { useEditStore } from '../../stores/edit';
import { useRouteStore } from '../../stores/route';
import { markOf, useSessionRuns, type Mark } from '../../stores/sessionRuns';
import { toReference } from '../edit/references';
import './sessionRuns.css';

const PHASE_LABEL: Record<StudioRun['phase'], string> = {
  done: 'Done',
  error: 'Failed',
  cancelled: 'Cancelled',
};

const viewerItem = (run: StudioRun, image: ImageRecord): ViewerItem => ({
  key: image.id,
  url: adminUrls.file(image.id),
  label: `${(run.prompt ?? '').slice(0, 60)} · image ${image.index + 1}`,
});

/** "1024x1024 · $0.011 · 2026-11-26 14:03": what a tile is, what it cost and when. */
export function tileFacts(image: ImageRecord): string {
  return `${image.width}x${image.height} · ${formatUsd(image.costMicros)} · ${formatDateTime(image.createdAt)}`;
}

/**
 * Generate's runs, newest first, grouped by request and read from the gateway (they survive a
 * reload and a restart): each image can be starred (a gallery favourite) or rejected (hidden from
 * the gallery), opened full window with its actions, or saved. Cancelled and failed runs stay,
 * marked as such.
 */
export function SessionRuns() {
  const runs = useSessionRuns((s) => s.runs);
  const total = useSessionRuns((s) => s.total);
  const more = useSessionRuns((s) => s.more);
  const mark = useSessionRuns((s) => s.mark);
  const replaceImage = useSessionRuns((s) => s.replaceImage);
  const navigate = useRouteStore((s) => s.navigate);
  const [viewing, setViewing] = useState<{ run: StudioRun; index: number } | null>(null);
  const [deleting, setDeleting] = useState<ImageRecord | null>(null);

  if (runs.length === 0) return null;
  const starred = runs.reduce((n, r) => n + r.images.filter((i) => i.favourite).length, 0);
  const current = viewing
    ? (runs.find((r) => r.requestId === viewing.run.requestId) ?? viewing.run)
    : null;
  const inView = current && viewing ? current.images[viewing.index] : undefined;

  const editThis = async (image: ImageRecord) => {
    const blob = await gateway.imageFile(image.id);
    const name = imageFileName(blob, new Date(image.createdAt), image.index);
    useEditStore.getState().startFrom(await toReference(blob, name, image.id));
    navigate('/edit');
  };
  const download = async (image: ImageRecord) => {
    const blob = await gateway.imageFile(image.id);
    await saveBlob(blob, imageFileName(blob, new Date(image.createdAt), image.index));
  };

  return (
    <section
      className="session-runs"
      aria-labelledby="session-runs-title"
      data-testid="session-runs"
    >
      <header className="session-runs-header">
        <h2 id="session-runs-title">Runs</h2>
        <span className="muted">
          {total} run{total === 1 ? '' : 's'}
          {starred > 0 && ` · ${starred} starred`}
        </span>
      </header>
      <ol className="session-run-list">
        {runs.map((run) => (
          <li
            key={run.requestId}
            className={`session-run session-run-${run.phase}`}
            data-testid="session-run"
            data-phase={run.phase}
            data-request-id={run.requestId}
          >
            <p className="session-run-line">
              <span className="muted">{formatDateTime(run.createdAt)}</span>
              {run.phase !== 'done' && (
                <span
                  className={`session-run-phase phase-${run.phase}`}
                  data-testid="session-run-phase"
                >
                  {PHASE_LABEL[run.phase]}
                </span>
              )}
              <span className="session-run-prompt" title={run.prompt ?? undefined}>
                {run.prompt ?? <span className="muted">No image kept</span>}
              </span>
              <span className="muted" data-testid="session-run-cost">
                {run.size ?? 'auto'} · {run.n} · {formatUsd(run.costMicros)}
              </span>
            </p>
            {run.images.length > 0 ? (
              <ul className="session-images">
                {run.images.map((image, index) => (
                  <SessionImage
                    key={image.id}
                    image={image}
                    onView={() => setViewing({ run, index })}
                    onMark={(m) => void mark(image.id, m)}
                    onDownload={() => void download(image)}
                  />
                ))}
              </ul>
            ) : (
              <p className="muted session-run-empty">No image came back.</p>
            )}
          </li>
        ))}
      </ol>
      {runs.length < total && (
        <button type="button" onClick={() => void more()} data-testid="session-runs-more">
          Show older runs
        </button>
      )}
      {viewing && current && inView && (
        <LazyImageViewer
          items={current.images.map((image) => viewerItem(current, image))}
          index={viewing.index}
          onIndex={(index) => setViewing({ run: current, index })}
          onClose={() => setViewing(null)}
          actions={{
            favourite: {
              on: inView.favourite,
              toggle: () => void mark(inView.id, inView.favourite ? null : 'star'),
            },
            onEdit: () => void editThis(inView),
            onDownload: () => void download(inView),
            onDelete: () => {
              setViewing(null);
              setDeleting(inView);
            },
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this image?"
        confirmLabel="Delete image"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await admin.deleteImage(deleting.id);
          replaceImage(deleting.id, null);
        }}
      >
        <p>The image file and its thumbnail are removed from disk. Its usage record stays.</p>
      </ConfirmDialog>
    </section>
  );
}

function SessionImage({
  image,
  onView,
  onMark,
  onDownload,
}: {
  image: ImageRecord;
  onView: () => void;
  onMark: (mark: Mark) => void;
  onDownload: () => void;
}) {
  const mark = markOf(image);
  const label = `image ${image.index + 1}`;
  return (
    <li
      className={`session-image mark-${mark ?? 'none'}`}
      data-testid="session-image"
      data-mark={mark ?? ''}
      data-image-id={image.id}
    >
      <button type="button" className="session-thumb" onClick={onView} aria-label={`View ${label}`}>
        <img src={adminUrls.thumb(image.id)} alt="" loading="lazy" />
      </button>
      <span className="session-facts muted" data-testid="session-image-facts">
        {tileFacts(image)}
      </span>
      <span className="session-marks">
        <button
          type="button"
          aria-pressed={mark === 'star'}
          onClick={() => onMark(mark === 'star' ? null : 'star')}
          aria-label={`Star ${label}`}
          title="Star: a keeper (a favourite in the gallery)"
          data-testid="session-star"
        >
          {mark === 'star' ? '★' : '☆'}
        </button>
        <button
          type="button"
          aria-pressed={mark === 'reject'}
          onClick={() => onMark(mark === 'reject' ? null : 'reject')}
          aria-label={`Reject ${label}`}
          title="Reject: dim it here and hide it from the gallery"
          data-testid="session-reject"
        >
          ✕
        </button>
        <button
          type="button"
          onClick={onDownload}
          aria-label={`Download ${label}`}
          title="Download"
        >
          ↓
        </button>
      </span>
    </li>
  );
}
