import { useRef, useState, type PointerEvent } from 'react';
import type { ReferenceImage } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import { useShortcuts } from '../shell/useShortcuts';
import { CarriedMaskChoice } from './CarriedMaskChoice';
import type { View } from './canvasView';
import { extendLasso, type Point, type SelectionMode, type SelectionShape } from './mask/selection';
import { LayerImages } from './LayerImages';
import { MaskStatusBar } from './MaskStatusBar';
import { SelectionOutline, type OutlineHandle } from './SelectionOutline';
import { useCanvasView } from './useCanvasView';
import { useMaskCanvas, type StrokePoint } from './useMaskCanvas';
import { useSpaceHeld } from './useSpaceHeld';

export { ZOOM_MAX, ZOOM_MIN } from './canvasView';

interface Pan {
  pointerId: number;
  startX: number;
  startY: number;
  view: View;
}

/** A selection as it is dragged: its shape grows in place. */
type DraftShape = { kind: 'rect'; from: Point; to: Point } | { kind: 'lasso'; points: Point[] };

interface Selecting {
  pointerId: number;
  shape: DraftShape;
  mode: SelectionMode;
  /** The animation frame that will move the outline, 0 when none is due. */
  frame: number;
}

/** A pen's pressure (Pointer Events); a mouse or a finger paints at full strength. */
const pressureOf = (e: globalThis.PointerEvent) =>
  e.pointerType === 'pen' && e.pressure > 0 ? e.pressure : 1;

/**
 * Paints the mask over the first reference image, and draws rectangle and lasso selections
 * that add to the change or cut from it (Alt while dragging: the other way).
 */
export function MaskEditor({ source }: { source: ReferenceImage }) {
  const doc = useMaskStore((s) => s.doc);
  const tool = useMaskStore((s) => s.tool);
  const brushSize = useMaskStore((s) => s.brushSize);
  const overlay = useMaskStore((s) => s.overlay);
  const changedShare = useMaskStore((s) => s.changedShare);
  const state = useMaskStore.getState;

  const viewportRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const cursorRef = useRef<HTMLDivElement>(null);
  const panRef = useRef<Pan | null>(null);
  /** The selection being dragged: changed in place per pointer move, drawn once a frame. */
  const selectingRef = useRef<Selecting | null>(null);
  const outlineRef = useRef<OutlineHandle>(null);
  /** The outline's start: set at pointerdown and cleared at pointerup (two renders a drag). */
  const [outline, setOutline] = useState<{ shape: SelectionShape; mode: SelectionMode } | null>(
    null,
  );
  const spaceHeld = useSpaceHeld();
  const [panning, setPanning] = useState(false);
  const { view, setView: setUserView, zoomBy, zoomTo, fit } = useCanvasView(viewportRef, doc);
  const canvas = useMaskCanvas(canvasRef, view !== null);

  useShortcuts({
    brush: () => state().setTool('brush'),
    eraser: () => state().setTool('eraser'),
    selectRect: () => state().setTool('rect'),
    selectLasso: () => state().setTool('lasso'),
    brushSmaller: () => state().nudgeBrush(-1),
    brushLarger: () => state().nudgeBrush(1),
    undo: () => state().undo(),
    redo: () => state().redo(),
    invert: () => state().invert(),
    overlay: () => state().setOverlay(!state().overlay),
    zoomIn: () => zoomBy(1.25),
    zoomOut: () => zoomBy(1 / 1.25),
    zoomFit: fit,
    zoomActual: () => zoomTo(1),
  });

  const toImage = (e: globalThis.PointerEvent): StrokePoint => {
    const box = canvasRef.current!.getBoundingClientRect();
    return {
      x: ((e.clientX - box.left) / box.width) * doc!.width,
      y: ((e.clientY - box.top) / box.height) * doc!.height,
      pressure: pressureOf(e),
    };
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
    const p = toImage(e.nativeEvent);
    if (tool === 'rect' || tool === 'lasso') {
      const chosen = state().selectionMode;
      const mode = e.altKey ? (chosen === 'add' ? 'cut' : 'add') : chosen;
      const at = { x: p.x, y: p.y };
      const shape: DraftShape =
        tool === 'rect' ? { kind: 'rect', from: at, to: at } : { kind: 'lasso', points: [at] };
      selectingRef.current = { pointerId: e.pointerId, shape, mode, frame: 0 };
      setOutline({ shape, mode });
      return;
    }
    canvas.beginStroke(e.pointerId, p);
  };

  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    moveCursor(e);
    const pan = panRef.current;
    if (pan && pan.pointerId === e.pointerId) {
      const { view: v, startX, startY } = pan;
      setUserView({ ...v, x: v.x + e.clientX - startX, y: v.y + e.clientY - startY });
      return;
    }
    const selecting = selectingRef.current;
    if (selecting && selecting.pointerId === e.pointerId) {
      const p = toImage(e.nativeEvent);
      const { shape } = selecting;
      if (shape.kind === 'rect') shape.to = { x: p.x, y: p.y };
      else extendLasso(shape.points, { x: p.x, y: p.y }, 1 / (view?.zoom ?? 1));
      selecting.frame ||= requestAnimationFrame(() => {
        selecting.frame = 0;
        outlineRef.current?.show(selecting.shape);
      });
      return;
    }
    if (!doc) return;
    // Coalesced events keep fast strokes smooth: every sample the pointer made, not one per frame.
    const samples = e.nativeEvent.getCoalescedEvents?.() ?? [];
    const points = (samples.length > 0 ? samples : [e.nativeEvent]).map(toImage);
    canvas.moveStroke(e.pointerId, points);
  };

  const endPointer = (e: PointerEvent<HTMLDivElement>) => {
    if (panRef.current?.pointerId === e.pointerId) {
      panRef.current = null;
      setPanning(false);
      return;
    }
    const selecting = selectingRef.current;
    if (selecting && selecting.pointerId === e.pointerId) {
      selectingRef.current = null;
      if (selecting.frame) cancelAnimationFrame(selecting.frame);
      setOutline(null);
      if (doc && e.type === 'pointerup') {
        canvas.selected(doc.select(selecting.shape, selecting.mode));
      }
      return;
    }
    canvas.endStroke(e.pointerId);
  };

  const cursorSize = view ? brushSize * view.zoom : brushSize;
  const selectionTool = tool === 'rect' || tool === 'lasso';

  return (
    <div className="mask-editor" data-testid="mask-editor">
      <CarriedMaskChoice />
      <div
        ref={viewportRef}
        className={`mask-viewport ${spaceHeld || panning ? 'is-pan' : ''} tool-${tool}`}
        role="application"
        aria-roledescription="mask painting area"
        aria-label={`Mask over ${source.name}, ${source.width} by ${source.height} pixels. Paint or select the area to change.`}
        aria-describedby="mask-help"
        tabIndex={0}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endPointer}
        onPointerCancel={endPointer}
        onPointerLeave={() => cursorRef.current?.style.setProperty('opacity', '0')}
        onPointerEnter={(e) => {
          moveCursor(e);
          cursorRef.current?.style.setProperty('opacity', selectionTool ? '0' : '1');
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
            <LayerImages source={source} pixelated={view.zoom >= 2} />
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
        {doc && view && outline && (
          <SelectionOutline
            ref={outlineRef}
            initial={outline.shape}
            mode={outline.mode}
            view={view}
          />
        )}
        {!selectionTool && (
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
        )}
      </div>
      <MaskStatusBar
        view={view}
        changedShare={changedShare}
        zoomBy={zoomBy}
        zoomTo={zoomTo}
        fit={fit}
      />
    </div>
  );
}
