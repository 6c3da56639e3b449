import type { CSSProperties } from 'react';
import type { RunPhase, ImageSlot } from '../stores/run';
import './results.css';

interface ImageSlotsProps {
  slots: ImageSlot[];
  phase: RunPhase;
  requestedSize: string;
  /** Partial images asked for per image (to say "preview 2 of 3"). */
  partialImages: number;
  costOf: (slot: ImageSlot) => string | null;
  onDownload: (slot: ImageSlot) => void;
  onEdit?: ((slot: ImageSlot) => void) | undefined;
  editLabel?: string;
  selected?: number | null;
  onSelect?: ((index: number) => void) | undefined;
  /** Opens a finished image in the full-window viewer. */
  onView?: ((slot: ImageSlot) => void) | undefined;
}

/** The frame's shape: `aspect-ratio`, and `--slot-ratio` (width / height) for sizing by height. */
function frameShape(size: string): CSSProperties {
  const m = /^(\d+)x(\d+)$/.exec(size);
  const [w, h] = m ? [Number(m[1]), Number(m[2])] : [1, 1];
  return { aspectRatio: `${w} / ${h}`, ['--slot-ratio' as string]: String(w / h) };
}

/** The images of a run: each slot shows its latest partial while streaming, then the final. */
export function ImageSlots(props: ImageSlotsProps) {
  const { slots, phase, requestedSize } = props;
  if (slots.length === 0) return null;
  return (
    <ul
      className={`image-slots count-${Math.min(slots.length, 4)}`}
      aria-label="Images"
      data-testid="image-slots"
    >
      {slots.map((slot) => {
        const label = `Image ${slot.index + 1}`;
        const mismatch = slot.size && requestedSize !== 'auto' && slot.size !== requestedSize;
        // No image is coming for this slot: say so in a line rather than an empty frame.
        const ended = !slot.url && phase !== 'running';
        // A preview whose run ended without its final: it must not look like a run still going.
        const stopped =
          slot.state === 'partial' && phase !== 'running'
            ? phase === 'cancelled'
              ? 'cancelled'
              : 'failed'
            : null;
        const previewCount = `${slot.partials}${props.partialImages ? ` of ${props.partialImages}` : ''}`;
        return (
          <li
            key={slot.index}
            className={`image-slot slot-${slot.state} ${props.selected === slot.index ? 'selected' : ''}${
              stopped ? ` slot-stopped slot-stopped-${stopped}` : ''
            }`}
            data-stopped={stopped ?? undefined}
            data-testid="image-slot"
            data-state={slot.state}
            data-image-index={slot.index}
          >
            <div
              className={`slot-frame ${ended ? 'slot-frame-compact' : ''}`}
              style={ended ? undefined : frameShape(slot.size ?? requestedSize)}
              data-testid="slot-frame"
            >
              {slot.url ? (
                props.onSelect || props.onView ? (
                  // One element from the first preview to the final image: swapping a bare <img>
                  // for a button at the end would drop an image still loading a revoked preview.
                  <button
                    type="button"
                    className="slot-select"
                    disabled={slot.state !== 'done'}
                    aria-pressed={props.onSelect ? props.selected === slot.index : undefined}
                    aria-label={
                      props.onSelect
                        ? `Compare ${label.toLowerCase()} with the source`
                        : `View ${label.toLowerCase()} full window`
                    }
                    onClick={() =>
                      props.onSelect ? props.onSelect(slot.index) : props.onView?.(slot)
                    }
                  >
                    <SlotImage
                      slot={slot}
                      label={label}
                      partialImages={props.partialImages}
                      stopped={stopped}
                    />
                  </button>
                ) : (
                  <SlotImage
                    slot={slot}
                    label={label}
                    partialImages={props.partialImages}
                    stopped={stopped}
                  />
                )
              ) : (
                <div className="slot-empty">
                  {phase === 'running' ? (
                    <span className="slot-waiting">{label}: on its way</span>
                  ) : phase === 'cancelled' ? (
                    `${label}: cancelled`
                  ) : (
                    `${label}: not delivered`
                  )}
                </div>
              )}
              {slot.state === 'partial' && (
                <span className="slot-badge" data-testid="slot-badge">
                  {stopped === 'cancelled'
                    ? `Cancelled at preview ${previewCount}`
                    : stopped === 'failed'
                      ? `Stopped at preview ${previewCount}: no final image`
                      : `Preview ${slot.partials}${props.partialImages ? ` / ${props.partialImages}` : ''}`}
                </span>
              )}
            </div>
            {slot.state === 'done' && slot.blob && (
              <div className="slot-meta">
                <span>
                  {slot.size ?? requestedSize}
                  {mismatch && (
                    <span className="warn" title={`Requested ${requestedSize}`}>
                      {' '}
                      (asked {requestedSize})
                    </span>
                  )}
                </span>
                {props.costOf(slot) && <span className="muted">{props.costOf(slot)}</span>}
                <span className="slot-actions">
                  {props.onView && (
                    <button
                      type="button"
                      onClick={() => props.onView?.(slot)}
                      aria-label={`View ${label.toLowerCase()} full window`}
                      data-testid="result-view"
                    >
                      View
                    </button>
                  )}
                  <button
                    type="button"
                    onClick={() => props.onDownload(slot)}
                    aria-label={`Download ${label.toLowerCase()}`}
                  >
                    Download
                  </button>
                  {props.onEdit && (
                    <button
                      type="button"
                      onClick={() => props.onEdit?.(slot)}
                      aria-label={`${props.editLabel ?? 'Edit'}: ${label.toLowerCase()}`}
                      data-testid="edit-result"
                    >
                      {props.editLabel ?? 'Edit'}
                    </button>
                  )}
                </span>
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function SlotImage({
  slot,
  label,
  partialImages,
  stopped,
}: {
  slot: ImageSlot;
  label: string;
  partialImages: number;
  /** The run ended with this preview as the last: cancelled, or failed. */
  stopped: 'cancelled' | 'failed' | null;
}) {
  const done = slot.state === 'done';
  const preview = `preview ${slot.partials}${partialImages ? ` of ${partialImages}` : ''}`;
  return (
    <img
      src={slot.url ?? undefined}
      alt={
        done
          ? `${label}, final`
          : stopped
            ? `${label}, ${stopped} at ${preview}`
            : `${label}, ${preview}`
      }
      data-testid={done ? 'result-image' : 'partial-image'}
      data-image-index={slot.index}
      data-partial-count={slot.partials}
    />
  );
}
