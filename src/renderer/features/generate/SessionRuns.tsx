import { useState } from 'react';
import type { ViewerItem } from '../../components/ImageViewer';
import { LazyImageViewer } from '../../components/LazyImageViewer';
import { saveBlob, imageFileName } from '../../lib/files';
import { useSessionRuns, type Mark, type PastImage, type PastRun } from '../../stores/sessionRuns';
import './sessionRuns.css';

const pad = (n: number) => String(n).padStart(2, '0');
const clock = (ms: number) => {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

const PHASE_LABEL: Record<PastRun['phase'], string> = {
  done: 'Done',
  error: 'Failed',
  cancelled: 'Cancelled',
};

/**
 * Every run of this session, newest first: its prompt, time and images, each of which can be
 * starred (a keeper) or rejected (dimmed), opened full window or saved. Cancelled and failed runs
 * stay, marked as such, with whatever previews they got.
 */
export function SessionRuns() {
  const runs = useSessionRuns((s) => s.runs);
  const mark = useSessionRuns((s) => s.mark);
  const [viewing, setViewing] = useState<{ run: PastRun; index: number } | null>(null);
  if (runs.length === 0) return null;
  const starred = runs.reduce((n, r) => n + r.images.filter((i) => i.mark === 'star').length, 0);
  return (
    <section
      className="session-runs"
      aria-labelledby="session-runs-title"
      data-testid="session-runs"
    >
      <header className="session-runs-header">
        <h2 id="session-runs-title">This session</h2>
        <span className="muted">
          {runs.length} run{runs.length === 1 ? '' : 's'}
          {starred > 0 && ` · ${starred} starred`}
        </span>
      </header>
      <ol className="session-run-list">
        {runs.map((run) => (
          <li
            key={run.id}
            className={`session-run session-run-${run.phase}`}
            data-testid="session-run"
            data-phase={run.phase}
            data-run-id={run.id}
          >
            <p className="session-run-line">
              <span className="muted">{clock(run.startedAt)}</span>
              {run.phase !== 'done' && (
                <span
                  className={`session-run-phase phase-${run.phase}`}
                  data-testid="session-run-phase"
                >
                  {PHASE_LABEL[run.phase]}
                </span>
              )}
              <span className="session-run-prompt" title={run.prompt}>
                {run.prompt}
              </span>
              <span className="muted">
                {run.requestedSize} · {run.n}
              </span>
            </p>
            {run.images.length > 0 ? (
              <ul className="session-images">
                {run.images.map((image) => (
                  <SessionImage
                    key={image.index}
                    image={image}
                    onView={() =>
                      setViewing({
                        run,
                        index: run.images.findIndex((i) => i.index === image.index),
                      })
                    }
                    onMark={(m) => mark(run.id, image.index, m)}
                  />
                ))}
              </ul>
            ) : (
              <p className="muted session-run-empty">No image came back.</p>
            )}
          </li>
        ))}
      </ol>
      {viewing && (
        <LazyImageViewer
          items={viewing.run.images.map((image): ViewerItem => ({
            key: String(image.index),
            url: image.url,
            label: `${viewing.run.prompt.slice(0, 60)} · image ${image.index + 1}${image.final ? '' : ' (preview)'}`,
          }))}
          index={viewing.index}
          onIndex={(index) => setViewing({ ...viewing, index })}
          onClose={() => setViewing(null)}
        />
      )}
    </section>
  );
}

function SessionImage({
  image,
  onView,
  onMark,
}: {
  image: PastImage;
  onView: () => void;
  onMark: (mark: Mark) => void;
}) {
  const label = `Image ${image.index + 1}${image.final ? '' : ', preview'}`;
  return (
    <li
      className={`session-image mark-${image.mark ?? 'none'}`}
      data-testid="session-image"
      data-mark={image.mark ?? ''}
    >
      <button
        type="button"
        className="session-thumb"
        onClick={onView}
        aria-label={`View ${label.toLowerCase()}`}
      >
        <img src={image.url} alt="" />
        {!image.final && <span className="slot-badge">Preview</span>}
      </button>
      <span className="session-marks">
        <button
          type="button"
          aria-pressed={image.mark === 'star'}
          onClick={() => onMark(image.mark === 'star' ? null : 'star')}
          aria-label={`Star ${label.toLowerCase()}`}
          title="Star: a keeper"
          data-testid="session-star"
        >
          {image.mark === 'star' ? '★' : '☆'}
        </button>
        <button
          type="button"
          aria-pressed={image.mark === 'reject'}
          onClick={() => onMark(image.mark === 'reject' ? null : 'reject')}
          aria-label={`Reject ${label.toLowerCase()}`}
          title="Reject: dim it"
          data-testid="session-reject"
        >
          ✕
        </button>
        {image.final && (
          <button
            type="button"
            onClick={() =>
              void saveBlob(image.blob, imageFileName(image.blob, new Date(), image.index))
            }
            aria-label={`Download ${label.toLowerCase()}`}
            title="Download"
          >
            ↓
          </button>
        )}
      </span>
    </li>
  );
}
