import { useEffect, useId, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { differenceOf, type Difference } from '../lib/imageDifference';

export interface ViewerItem {
  /** Stable id (a gallery id, a result's index). */
  key: string;
  url: string;
  label: string;
}

/** What can be done with the image in view (issue 22): each button shows when it is given. */
export interface ViewerActions {
  favourite?: { on: boolean; toggle: () => void };
  onEdit?: () => void;
  onDownload?: () => void;
  onDelete?: () => void;
}

interface ImageViewerProps {
  items: readonly ViewerItem[];
  index: number;
  onIndex: (index: number) => void;
  onClose: () => void;
  /** What the current image can be compared with (wipe, difference); none: the other items. */
  against?: readonly ViewerItem[];
  /** The comparison open at the start (a result's source, a step's parent). */
  initialAgainst?: string | null;
  /** Actions on the image in view (favourite, edit, download, delete); Compare is built in. */
  actions?: ViewerActions;
}

type Zoom = 'fit' | 'actual';
type Mode = 'wipe' | 'difference';

/**
 * The full-window viewer: fit or 100 %, drag to pan, arrow keys through the set, Esc to close;
 * against another image, a wipe slider or a difference view (lib/imageDifference.ts). A modal
 * <dialog>, so page shortcuts pause while it is open and Escape closes it.
 */
export function ImageViewer(props: ImageViewerProps) {
  const { items, index, onIndex, onClose } = props;
  const item = items[index];
  const ref = useRef<HTMLDialogElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const [zoom, setZoom] = useState<Zoom>('fit');
  const [offset, setOffset] = useState({ x: 0, y: 0 });
  const [loaded, setNatural] = useState<{ url: string; w: number; h: number } | null>(null);
  // The size of the image in view: a size measured for the previous image does not count.
  const natural = loaded && loaded.url === item?.url ? loaded : null;
  const [stage, setStage] = useState({ w: 0, h: 0 });
  const candidates = (props.against ?? items).filter((c) => c.key !== item?.key);
  const [againstKey, setAgainstKey] = useState<string | null>(props.initialAgainst ?? null);
  const against = candidates.find((c) => c.key === againstKey) ?? null;
  const [mode, setMode] = useState<Mode>('wipe');
  const [wipe, setWipe] = useState(50);
  const [computed, setDiff] = useState<{ key: string; diff: Difference } | null>(null);
  const diffKey = item && against ? `${item.url}\n${against.url}` : '';
  const diff = computed?.key === diffKey ? computed.diff : null;
  const drag = useRef<{ x: number; y: number; ox: number; oy: number } | null>(null);
  const againstId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  // The stage's size decides the fit scale; it follows the window.
  useEffect(() => {
    const el = stageRef.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setStage({ w: el.clientWidth, h: el.clientHeight }));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    if (mode !== 'difference' || !against || !item) return;
    let live = true;
    let url: string | null = null;
    const key = `${item.url}\n${against.url}`;
    differenceOf(item.url, against.url).then(
      (d) => {
        if (!live) return URL.revokeObjectURL(d.url);
        url = d.url;
        setDiff({ key, diff: d });
      },
      () => undefined,
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [mode, against, item]);

  const step = (by: number) => {
    if (items.length === 0) return;
    // Another image: fit it again, centred.
    setOffset({ x: 0, y: 0 });
    onIndex((index + by + items.length) % items.length);
  };

  const fitScale = natural && stage.w > 0 ? Math.min(stage.w / natural.w, stage.h / natural.h) : 1;
  const scale = zoom === 'fit' ? fitScale : 1;
  const w = (natural?.w ?? 0) * scale;
  const h = (natural?.h ?? 0) * scale;

  const onPointerDown = (e: ReactPointerEvent) => {
    if (e.button !== 0) return;
    (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, y: e.clientY, ox: offset.x, oy: offset.y };
  };
  const onPointerMove = (e: ReactPointerEvent) => {
    const d = drag.current;
    if (!d) return;
    setOffset({ x: d.ox + e.clientX - d.x, y: d.oy + e.clientY - d.y });
  };
  const onPointerUp = () => {
    drag.current = null;
  };

  const setZoomMode = (z: Zoom) => {
    setZoom(z);
    setOffset({ x: 0, y: 0 });
  };

  if (!item) return null;
  const showDiff = mode === 'difference' && against;
  return (
    <dialog
      ref={ref}
      className="viewer"
      aria-label={`Image viewer: ${item.label}`}
      data-testid="image-viewer"
      data-index={index}
      data-zoom={zoom}
      data-scale={natural ? scale.toFixed(4) : ''}
      data-mode={against ? mode : 'single'}
      data-offset={`${Math.round(offset.x)},${Math.round(offset.y)}`}
      onClose={onClose}
      onKeyDown={(e) => {
        if (e.target instanceof HTMLSelectElement || e.target instanceof HTMLInputElement) return;
        if (e.key === 'ArrowRight') step(1);
        else if (e.key === 'ArrowLeft') step(-1);
        else if (e.key === 'f') setZoomMode('fit');
        else if (e.key === '1') setZoomMode('actual');
        else return;
        e.preventDefault();
      }}
    >
      <header className="viewer-bar">
        <span className="viewer-count" data-testid="viewer-count">
          {index + 1} / {items.length}
        </span>
        <span className="viewer-label" title={item.label}>
          {item.label}
        </span>
        <div className="viewer-tools" role="group" aria-label="View">
          <button
            type="button"
            onClick={() => step(-1)}
            disabled={items.length < 2}
            aria-label="Previous image (←)"
            data-testid="viewer-prev"
          >
            ←
          </button>
          <button
            type="button"
            onClick={() => step(1)}
            disabled={items.length < 2}
            aria-label="Next image (→)"
            data-testid="viewer-next"
          >
            →
          </button>
          <button
            type="button"
            aria-pressed={zoom === 'fit'}
            onClick={() => setZoomMode('fit')}
            title="F"
            data-testid="viewer-fit"
          >
            Fit
          </button>
          <button
            type="button"
            aria-pressed={zoom === 'actual'}
            onClick={() => setZoomMode('actual')}
            title="1"
            data-testid="viewer-actual"
          >
            100 %
          </button>
          {candidates.length > 0 && (
            <>
              <label htmlFor={againstId} className="viewer-against-label">
                Compare with
              </label>
              <select
                id={againstId}
                value={against?.key ?? ''}
                onChange={(e) => setAgainstKey(e.target.value || null)}
                data-testid="viewer-against"
              >
                <option value="">Nothing</option>
                {candidates.map((c) => (
                  <option key={c.key} value={c.key}>
                    {c.label}
                  </option>
                ))}
              </select>
            </>
          )}
          {against && (
            <>
              <button
                type="button"
                aria-pressed={mode === 'wipe'}
                onClick={() => setMode('wipe')}
                data-testid="viewer-wipe-mode"
              >
                Wipe
              </button>
              <button
                type="button"
                aria-pressed={mode === 'difference'}
                onClick={() => setMode('difference')}
                data-testid="viewer-difference-mode"
              >
                Difference
              </button>
            </>
          )}
          {(props.actions || candidates.length > 0) && (
            <ViewerActionButtons
              actions={props.actions ?? {}}
              canCompare={candidates.length > 0}
              comparing={against !== null}
              onCompare={() => {
                setAgainstKey(against ? null : (candidates[0]?.key ?? null));
                setMode('wipe');
              }}
            />
          )}
          <button
            type="button"
            className="viewer-close"
            onClick={() => ref.current?.close()}
            aria-label="Close the viewer (Esc)"
            data-testid="viewer-close"
          >
            ×
          </button>
        </div>
      </header>
      <div
        ref={stageRef}
        className={`viewer-stage ${zoom === 'actual' ? 'is-actual' : ''}`}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        data-testid="viewer-stage"
      >
        <div
          className="viewer-frame"
          style={{
            width: w,
            height: h,
            transform: `translate(calc(-50% + ${offset.x}px), calc(-50% + ${offset.y}px))`,
          }}
        >
          {against && mode === 'wipe' && (
            <img
              src={against.url}
              alt={`Compared with: ${against.label}`}
              className="viewer-under"
              draggable={false}
              data-testid="viewer-against-image"
            />
          )}
          <img
            src={item.url}
            alt={item.label}
            draggable={false}
            className={showDiff ? 'viewer-hidden' : undefined}
            style={against && mode === 'wipe' ? { clipPath: `inset(0 0 0 ${wipe}%)` } : undefined}
            onLoad={(e) =>
              setNatural({
                url: item.url,
                w: e.currentTarget.naturalWidth,
                h: e.currentTarget.naturalHeight,
              })
            }
            data-testid="viewer-image"
          />
          {against && mode === 'wipe' && (
            <span className="viewer-wipe-line" style={{ left: `${wipe}%` }} aria-hidden="true" />
          )}
          {showDiff && diff && (
            <img
              src={diff.url}
              alt={`Difference from ${against.label}`}
              draggable={false}
              className="viewer-diff"
              data-testid="viewer-difference"
            />
          )}
        </div>
      </div>
      {against && (
        <footer className="viewer-foot">
          {mode === 'wipe' ? (
            <label className="viewer-wipe">
              <span>Left: {against.label} · right: this image</span>
              <input
                type="range"
                min={0}
                max={100}
                value={wipe}
                onChange={(e) => setWipe(Number(e.target.value))}
                aria-label="Wipe position"
                data-testid="viewer-wipe"
              />
            </label>
          ) : (
            <p
              className="viewer-diff-share"
              data-testid="viewer-diff-share"
              data-share={diff ? diff.changedShare.toFixed(6) : ''}
            >
              {diff
                ? `${(diff.changedShare * 100).toFixed(1)} % of the pixels differ (brighter = more; shown 3× stronger)`
                : 'Comparing…'}
            </p>
          )}
        </footer>
      )}
    </dialog>
  );
}

function ViewerActionButtons(props: {
  actions: ViewerActions;
  canCompare: boolean;
  comparing: boolean;
  onCompare: () => void;
}) {
  const { favourite, onEdit, onDownload, onDelete } = props.actions;
  return (
    <span className="viewer-actions" role="group" aria-label="Image" data-testid="viewer-actions">
      {favourite && (
        <button
          type="button"
          aria-pressed={favourite.on}
          onClick={favourite.toggle}
          title={favourite.on ? 'Remove from favourites' : 'Add to favourites'}
          data-testid="viewer-favourite"
        >
          {favourite.on ? '★' : '☆'}
        </button>
      )}
      {onEdit && (
        <button type="button" onClick={onEdit} data-testid="viewer-edit">
          Edit
        </button>
      )}
      {onDownload && (
        <button type="button" onClick={onDownload} data-testid="viewer-download">
          Download
        </button>
      )}
      {props.canCompare && (
        <button
          type="button"
          aria-pressed={props.comparing}
          onClick={props.onCompare}
          title="Compare with another image (wipe or difference)"
          data-testid="viewer-compare"
        >
          Compare
        </button>
      )}
      {onDelete && (
        <button type="button" className="danger" onClick={onDelete} data-testid="viewer-delete">
          Delete
        </button>
      )}
    </span>
  );
}
