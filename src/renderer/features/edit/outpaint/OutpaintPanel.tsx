import { useId, useState } from 'react';
import { checkDimensions, type Dimensions } from '../../../../shared/sizeRules';
import {
  ANCHORS,
  CENTRE,
  grows,
  placeOriginal,
  snapCanvasSize,
  type Anchor,
} from './outpaintGeometry';

export interface OutpaintPlan {
  canvas: Dimensions;
  anchor: Anchor;
}

const ANCHOR_NAMES: Record<string, string> = {
  '0,0': 'top left',
  '0.5,0': 'top',
  '1,0': 'top right',
  '0,0.5': 'left',
  '0.5,0.5': 'centre',
  '1,0.5': 'right',
  '0,1': 'bottom left',
  '0.5,1': 'bottom',
  '1,1': 'bottom right',
};

/**
 * Outpainting: drag the new canvas's width and height (checked against the spec's size rules
 * as they move, and snapped to the nearest valid size that holds the image), pick where the
 * image sits, then one click expands the canvas, masks the new area and sends.
 */
export function OutpaintPanel(props: {
  original: Dimensions;
  busy: boolean;
  onExpand: (plan: OutpaintPlan) => void;
}) {
  const { original, busy, onExpand } = props;
  const id = useId();
  const [wanted, setWanted] = useState<Dimensions>({
    width: Math.round(original.width * 1.5),
    height: original.height,
  });
  const [anchor, setAnchor] = useState<Anchor>(CENTRE);
  const canvas = snapCanvasSize(wanted, original);
  const failure = checkDimensions(wanted.width, wanted.height);
  const placed = canvas ? placeOriginal(original, canvas, anchor) : null;
  const ready = canvas !== null && grows(canvas, original);

  const slider = (edge: 'width' | 'height', label: string) => (
    <div className="field field-range">
      <label htmlFor={`${id}-${edge}`}>
        {label} <output>{wanted[edge]} px</output>
      </label>
      <input
        id={`${id}-${edge}`}
        type="range"
        min={original[edge]}
        max={3840}
        step={1}
        value={wanted[edge]}
        onChange={(e) => setWanted({ ...wanted, [edge]: Number(e.target.value) })}
        data-testid={`outpaint-${edge}`}
      />
    </div>
  );

  return (
    <section className="outpaint-panel" aria-label="Expand the canvas" data-testid="outpaint">
      {slider('width', 'Width')}
      {slider('height', 'Height')}
      <div className="anchor-grid" role="group" aria-label="Where the image sits">
        {ANCHORS.map((a) => {
          const key = `${a.x},${a.y}`;
          return (
            <button
              key={key}
              type="button"
              aria-pressed={a.x === anchor.x && a.y === anchor.y}
              aria-label={`Image at the ${ANCHOR_NAMES[key]}`}
              onClick={() => setAnchor(a)}
              data-testid="outpaint-anchor"
              data-anchor={key}
            />
          );
        })}
      </div>
      {canvas && placed && (
        <div
          className="outpaint-diagram"
          style={{ aspectRatio: `${canvas.width} / ${canvas.height}` }}
          aria-hidden="true"
        >
          <span
            style={{
              left: `${(placed.x / canvas.width) * 100}%`,
              top: `${(placed.y / canvas.height) * 100}%`,
              width: `${(placed.width / canvas.width) * 100}%`,
              height: `${(placed.height / canvas.height) * 100}%`,
            }}
          />
        </div>
      )}
      <p
        className={`outpaint-size ${canvas ? '' : 'field-error'}`}
        aria-live="polite"
        data-testid="outpaint-size"
        data-width={canvas?.width ?? ''}
        data-height={canvas?.height ?? ''}
        data-rule={failure?.rule ?? ''}
      >
        {!canvas
          ? `No valid size holds this ${original.width}x${original.height} image.`
          : failure
            ? `${wanted.width}x${wanted.height} breaks a size rule (${failure.message.replace(/^size \S+: /, '')}): it becomes ${canvas.width}x${canvas.height}.`
            : `${canvas.width}x${canvas.height}: a valid size.`}
      </p>
      <button
        type="button"
        className="primary"
        disabled={!ready || busy}
        onClick={() => canvas && onExpand({ canvas, anchor })}
        data-testid="outpaint-send"
      >
        Expand and send
      </button>
    </section>
  );
}
