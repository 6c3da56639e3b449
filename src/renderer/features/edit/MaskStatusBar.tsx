import { ZOOM_MAX, ZOOM_MIN, type View } from './canvasView';

interface MaskStatusBarProps {
  view: View | null;
  changedShare: number;
  zoomBy: (factor: number) => void;
  zoomTo: (zoom: number) => void;
  fit: () => void;
}

/** Under the canvas: zoom, how much of the image will change, and how to pan. */
export function MaskStatusBar({ view, changedShare, zoomBy, zoomTo, fit }: MaskStatusBarProps) {
  const zoomPercent = view ? Math.round(view.zoom * 100) : 100;
  return (
    <div className="mask-statusbar">
      <div className="zoom-controls" role="group" aria-label="Zoom">
        <button
          type="button"
          onClick={() => zoomBy(1 / 1.25)}
          aria-label="Zoom out"
          disabled={!view || view.zoom <= ZOOM_MIN}
        >
          −
        </button>
        <output className="zoom-value" data-testid="zoom-value" aria-label="Zoom level">
          {zoomPercent}%
        </output>
        <button
          type="button"
          onClick={() => zoomBy(1.25)}
          aria-label="Zoom in"
          disabled={!view || view.zoom >= ZOOM_MAX}
        >
          +
        </button>
        <button type="button" onClick={fit}>
          Fit
        </button>
        <button type="button" onClick={() => zoomTo(1)}>
          100%
        </button>
      </div>
      <span className="mask-share" data-testid="mask-share" aria-live="polite">
        {changedShare > 0
          ? `${(changedShare * 100).toFixed(changedShare < 0.01 ? 2 : 1)}% of the image will change`
          : 'Nothing painted: the whole image may change'}
      </span>
      <span id="mask-help" className="muted mask-help">
        B brush · E eraser · M rectangle · L lasso (Alt-drag cuts) · Space-drag to pan · wheel to
        zoom
      </span>
    </div>
  );
}
