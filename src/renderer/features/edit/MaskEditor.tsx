import { useEffect, useEffectEvent, useRef, useState, type PointerEvent } from 'react';
import type { ReferenceImage } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import { useShortcuts } from '../shell/useShortcuts';
import { isTypingTarget } from '../../lib/shortcuts';
import { unionRect, type MaskDocument, type Rect } from './mask/maskDocument';
import { announceMaskDrawn } from './mask/maskCanvasFeed';
import { featherCoverage, overlayRgba } from './mask/maskPixels';

export const ZOOM_MIN = 0.1;
export const ZOOM_MAX = 8;

interface View {
  doc: MaskDocument;
  zoom: number;
  x: number;
  y: number;
}

const clampZoom = (z: number) => Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, z));

function fitView(doc: MaskDocument, size: { width: number; height: number }): View {
  const zoom = clampZoom(Math.min(size.width / doc.width, size.height / doc.height) * 0.94);
  return {
    doc,
    zoom,
    x: (size.width - doc.width * zoom) / 2,
    y: (size.height - doc.height * zoom) / 2,
  };
}

/** Zooms to `zoom` keeping the image point under (cx, cy) (viewport pixels) in place. */
function zoomAround(view: View, zoom: number, cx: number, cy: number): View {
  const z = clampZoom(zoom);
  const k = z / view.zoom;
  return { doc: view.doc, zoom: z, x: cx - (cx - view.x) * k, y: cy - (cy - view.y) * k };
}

interface Stroke {
  pointerId: number;
  pending: Array<{ x: number; y: number }>;
  frame: number;
}

interface Pan {
  pointerId: number;
  startX: number;
  startY: number;
  view: View;
}

/**
 * Paints the mask over the first reference image. The overlay canvas has the image's own pixel
 * size (CSS scales it for zoom), and is drawn from the mask document's coverage: only the
 * rectangle a stroke segment touched is redrawn, once per animation frame.
 */
export function MaskEditor({ source }: { source: ReferenceImage }) {
  const doc = useMaskStore((s) => s.doc);
  const version = useMaskStore((s) => s.version);
  const tool = useMaskStore((s) => s.tool);
  const brushSize = useMaskStore((s) => s.brushSize);
  const feather = useMaskStore((s) => s.feather);
  const overlay = useMaskStore((s) => s.overlay);
  const changedShare = useMaskStore((s) => s.changedShare);
  const commit = useMaskStore((s) => s.commit);
  const store = useMaskStore;

  const viewportRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const cursorRef = useRef<HTMLDivElement>(null);
  const strokeRef = useRef<Stroke | null>(null);
  const panRef = useRef<Pan | null>(null);
  /** What the canvas shows, to skip a redraw the strokes already made. */
  const drawnRef = useRef<{
    canvas: HTMLCanvasElement | null;
    doc: MaskDocument | null;
    version: number;
    feather: number;
  }>({
    canvas: null,
    doc: null,
    version: -1,
    feather: -1,
  });

  const [viewportSize, setViewportSize] = useState<{ width: number; height: number } | null>(null);
  const [userView, setUserView] = useState<View | null>(null);
  const [spaceHeld, setSpaceHeld] = useState(false);
  const [panning, setPanning] = useState(false);

  const fitted = doc && viewportSize ? fitView(doc, viewportSize) : null;
  const view = userView && userView.doc === doc ? userView : fitted;
  const staged = view !== null;

  // The viewport's size, for fitting the image.
  useEffect(() => {
    const viewport = viewportRef.current;
    if (!viewport) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry)
        setViewportSize({ width: entry.contentRect.width, height: entry.contentRect.height });
    });
    observer.observe(viewport);
    return () => observer.disconnect();
  }, []);

  // Full redraw after undo, redo, invert, clear, load, a feather change or a new image.
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!doc || !canvas || doc.painting) return;
    const drawn = drawnRef.current;
    if (
      drawn.canvas === canvas &&
      drawn.doc === doc &&
      drawn.version === version &&
      drawn.feather === feather
    ) {
      // Already drawn (by the stroke itself): the preview may still need to hear of it, e.g.
      // after it mounted again.
      announceMaskDrawn({ canvas, doc, version, feather });
      return;
    }
    const change =
      feather > 0 ? featherCoverage(doc.coverage, doc.width, doc.height, feather) : doc.coverage;
    const ctx = canvas.getContext('2d');
    ctx?.putImageData(
      new ImageData(overlayRgba(change, doc.width, doc.full), doc.width, doc.height),
      0,
      0,
    );
    drawnRef.current = { canvas, doc, version, feather };
    announceMaskDrawn({ canvas, doc, version, feather });
    // `staged`: the canvas exists only once the viewport is measured; a mask that was already
    // painted (carried over, or kept across a reload) is drawn when it appears.
  }, [doc, version, feather, staged]);

  // Space held = pan mode (not while typing: space is a character there).
  useEffect(() => {
    const down = (e: KeyboardEvent) => {
      if (e.code !== 'Space' || isTypingTarget(e.target) || document.querySelector('dialog[open]'))
        return;
      e.preventDefault();
      if (!e.repeat) setSpaceHeld(true);
    };
    const up = (e: KeyboardEvent) => {
      if (e.code === 'Space') setSpaceHeld(false);
    };
    const blur = () => setSpaceHeld(false);
    window.addEventListener('keydown', down);
    window.addEventListener('keyup', up);
    window.addEventListener('blur', blur);
    return () => {
      window.removeEventListener('keydown', down);
      window.removeEventListener('keyup', up);
      window.removeEventListener('blur', blur);
    };
  }, []);

  // The wheel zooms around the pointer; React's wheel listener is passive, so add our own.
  const onWheel = useEffectEvent((e: WheelEvent) => {
    const viewport = viewportRef.current;
    if (!view || !viewport) return;
    e.preventDefault();
    const box = viewport.getBoundingClientRect();
    const factor = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
    setUserView(zoomAround(view, view.zoom * factor, e.clientX - box.left, e.clientY - box.top));
  });
  useEffect(() => {
    const viewport = viewportRef.current;
    if (!viewport) return;
    const listener = (e: WheelEvent) => onWheel(e);
    viewport.addEventListener('wheel', listener, { passive: false });
    return () => viewport.removeEventListener('wheel', listener);
  }, []);

  const zoomBy = (factor: number) => {
    if (!view || !viewportSize) return;
    setUserView(
      zoomAround(view, view.zoom * factor, viewportSize.width / 2, viewportSize.height / 2),
    );
  };
  const zoomTo = (zoom: number) => {
    if (!view || !viewportSize) return;
    setUserView(zoomAround(view, zoom, viewportSize.width / 2, viewportSize.height / 2));
  };

  const state = store.getState;
  useShortcuts({
    brush: () => state().setTool('brush'),
    eraser: () => state().setTool('eraser'),
    brushSmaller: () => state().nudgeBrush(-1),
    brushLarger: () => state().nudgeBrush(1),
    undo: () => state().undo(),
    redo: () => state().redo(),
    invert: () => state().invert(),
    overlay: () => state().setOverlay(!state().overlay),
    zoomIn: () => zoomBy(1.25),
    zoomOut: () => zoomBy(1 / 1.25),
    zoomFit: () => setUserView(null),
    zoomActual: () => zoomTo(1),
  });

  const drawRect = (d: MaskDocument, rect: Rect | null) => {
    const ctx = canvasRef.current?.getContext('2d');
    if (!rect || !ctx || rect.width <= 0 || rect.height <= 0) return;
    ctx.putImageData(
      new ImageData(overlayRgba(d.coverage, d.width, rect), rect.width, rect.height),
      rect.x,
      rect.y,
    );
  };

  const toImage = (clientX: number, clientY: number) => {
    const box = canvasRef.current!.getBoundingClientRect();
    return {
      x: ((clientX - box.left) / box.width) * doc!.width,
      y: ((clientY - box.top) / box.height) * doc!.height,
    };
  };

  const flush = () => {
    const stroke = strokeRef.current;
    if (!stroke || !doc) return;
    stroke.frame = 0;
    let dirty: Rect | null = null;
    for (const p of stroke.pending) dirty = unionRect(dirty, doc.strokeTo(p.x, p.y));
    stroke.pending = [];
    drawRect(doc, dirty);
    if (dirty && canvasRef.current) {
      announceMaskDrawn({ canvas: canvasRef.current, doc, version: -1, feather });
    }
  };

  const moveCursor = (e: PointerEvent<HTMLDivElement>) => {
    const cursor = cursorRef.current;
    const viewport = viewportRef.current;
    if (!cursor || !viewport) return;
    const box = viewport.getBoundingClientRect();
    cursor.style.transform = `translate(${e.clientX - box.left}px, ${e.clientY - box.top}px)`;
  };

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (!doc || !view) return;
    const wantsPan = e.button === 1 || (e.button === 0 && spaceHeld);
    if (!wantsPan && e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    e.currentTarget.focus({ preventScroll: true });
    if (wantsPan) {
      panRef.current = { pointerId: e.pointerId, startX: e.clientX, startY: e.clientY, view };
      setPanning(true);
      return;
    }
    const p = toImage(e.clientX, e.clientY);
    drawRect(doc, doc.beginStroke(tool, brushSize, p.x, p.y));
    strokeRef.current = { pointerId: e.pointerId, pending: [], frame: 0 };
  };

  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    moveCursor(e);
    const pan = panRef.current;
    if (pan && pan.pointerId === e.pointerId) {
      setUserView({
        ...pan.view,
        x: pan.view.x + e.clientX - pan.startX,
        y: pan.view.y + e.clientY - pan.startY,
      });
      return;
    }
    const stroke = strokeRef.current;
    if (!stroke || stroke.pointerId !== e.pointerId) return;
    // Coalesced events keep fast strokes smooth: every sample the pointer made, not one per frame.
    const samples = e.nativeEvent.getCoalescedEvents?.() ?? [];
    for (const sample of samples.length > 0 ? samples : [e.nativeEvent]) {
      stroke.pending.push(toImage(sample.clientX, sample.clientY));
    }
    if (!stroke.frame) stroke.frame = requestAnimationFrame(flush);
  };

  const endPointer = (e: PointerEvent<HTMLDivElement>) => {
    if (panRef.current?.pointerId === e.pointerId) {
      panRef.current = null;
      setPanning(false);
      return;
    }
    const stroke = strokeRef.current;
    if (!stroke || stroke.pointerId !== e.pointerId || !doc) return;
    if (stroke.frame) cancelAnimationFrame(stroke.frame);
    flush();
    strokeRef.current = null;
    doc.endStroke();
    // The canvas already shows this stroke; only a feathered view needs a full redraw.
    if (feather === 0) {
      drawnRef.current = { canvas: canvasRef.current, doc, version: doc.version, feather };
      if (canvasRef.current) {
        announceMaskDrawn({ canvas: canvasRef.current, doc, version: doc.version, feather });
      }
    }
    commit();
  };

  const cursorSize = view ? brushSize * view.zoom : brushSize;
  const zoomPercent = view ? Math.round(view.zoom * 100) : 100;

  return (
    <div className="mask-editor" data-testid="mask-editor">
      <div
        ref={viewportRef}
        className={`mask-viewport ${spaceHeld || panning ? 'is-pan' : ''} tool-${tool}`}
        role="application"
        aria-roledescription="mask painting area"
        aria-label={`Mask over ${source.name}, ${source.width} by ${source.height} pixels. Paint the area to change.`}
        aria-describedby="mask-help"
        tabIndex={0}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endPointer}
        onPointerCancel={endPointer}
        onPointerLeave={() => cursorRef.current?.style.setProperty('opacity', '0')}
        onPointerEnter={(e) => {
          moveCursor(e);
          cursorRef.current?.style.setProperty('opacity', '1');
        }}
        data-testid="mask-viewport"
      >
        {doc && view && (
          <div
            className="mask-stage"
            style={{
              width: doc.width,
              height: doc.height,
              transform: `translate(${view.x}px, ${view.y}px) scale(${view.zoom})`,
            }}
          >
            <img
              src={source.url}
              alt=""
              width={doc.width}
              height={doc.height}
              draggable={false}
              className={view.zoom >= 2 ? 'pixelated' : undefined}
            />
            <canvas
              ref={canvasRef}
              width={doc.width}
              height={doc.height}
              className="mask-canvas"
              style={{ visibility: overlay ? 'visible' : 'hidden' }}
              data-testid="mask-canvas"
            />
          </div>
        )}
        <div
          ref={cursorRef}
          className={`brush-cursor cursor-${tool}`}
          style={{
            width: cursorSize,
            height: cursorSize,
            marginLeft: -cursorSize / 2,
            marginTop: -cursorSize / 2,
          }}
          aria-hidden="true"
        />
      </div>
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
          <button type="button" onClick={() => setUserView(null)}>
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
          Space-drag or middle-drag to pan · wheel to zoom
        </span>
      </div>
    </div>
  );
}
