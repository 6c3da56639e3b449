import { useEffect, useMemo, useRef, type RefObject } from 'react';
import { useMaskStore } from '../../stores/mask';
import { unionRect, type MaskDocument, type Rect } from './mask/maskDocument';
import { announceMaskDrawn } from './mask/maskCanvasFeed';
import { featherCoverage, overlayRgba, tintFromHex } from './mask/maskPixels';

interface Stroke {
  pointerId: number;
  pending: Array<{ x: number; y: number; pressure: number }>;
  frame: number;
}

/** A point of a stroke: image pixels and the pen's pressure (1 for a mouse or finger). */
export interface StrokePoint {
  x: number;
  y: number;
  pressure: number;
}

/** The most pixels drawn in one frame when a selection lands: a few milliseconds of work. */
const BAND_PIXELS = 1 << 20;

/** `rect` as bands of whole rows of at most `pixels` pixels each (at least one row a band). */
function splitRows(rect: Rect, pixels: number): Rect[] {
  const rows = Math.max(1, Math.floor(pixels / Math.max(1, rect.width)));
  const bands: Rect[] = [];
  for (let y = rect.y; y < rect.y + rect.height; y += rows) {
    bands.push({
      x: rect.x,
      y,
      width: rect.width,
      height: Math.min(rows, rect.y + rect.height - y),
    });
  }
  return bands;
}

/**
 * Draws the mask document onto the overlay canvas (image-sized; CSS scales it) and paints
 * strokes into it: a full redraw only after undo, invert, load, feather, a colour change or a
 * new image; during a stroke only the rectangle each segment touched, once per animation frame.
 */
export function useMaskCanvas(canvasRef: RefObject<HTMLCanvasElement | null>, staged: boolean) {
  const doc = useMaskStore((s) => s.doc);
  const version = useMaskStore((s) => s.version);
  const feather = useMaskStore((s) => s.feather);
  const tintHex = useMaskStore((s) => s.tint);
  const tint = useMemo(() => tintFromHex(tintHex), [tintHex]);
  const strokeRef = useRef<Stroke | null>(null);
  /** What the canvas shows, to skip a redraw the strokes already made. */
  const drawnRef = useRef({
    canvas: null as HTMLCanvasElement | null,
    doc: null as MaskDocument | null,
    version: -1,
    feather: -1,
    tint: '',
  });

  const announce = (canvas: HTMLCanvasElement, d: MaskDocument, v: number) =>
    announceMaskDrawn({ canvas, doc: d, version: v, feather });

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!doc || !canvas || doc.painting) return;
    const drawn = drawnRef.current;
    if (
      drawn.canvas === canvas &&
      drawn.doc === doc &&
      drawn.version === version &&
      drawn.feather === feather &&
      drawn.tint === tintHex
    ) {
      // Already drawn (by the stroke itself): the preview may still need to hear of it.
      announceMaskDrawn({ canvas, doc, version, feather });
      return;
    }
    const change =
      feather > 0 ? featherCoverage(doc.coverage, doc.width, doc.height, feather) : doc.coverage;
    canvas
      .getContext('2d')
      ?.putImageData(
        new ImageData(overlayRgba(change, doc.width, doc.full, tint), doc.width, doc.height),
        0,
        0,
      );
    drawnRef.current = { canvas, doc, version, feather, tint: tintHex };
    announceMaskDrawn({ canvas, doc, version, feather });
    // `staged`: the canvas exists only once the viewport is measured; a mask that was already
    // painted (carried over, or kept across a reload) is drawn when it appears.
  }, [canvasRef, doc, version, feather, tint, tintHex, staged]);

  const drawRect = (d: MaskDocument, rect: Rect | null) => {
    const ctx = canvasRef.current?.getContext('2d');
    if (!rect || !ctx || rect.width <= 0 || rect.height <= 0) return;
    ctx.putImageData(
      new ImageData(overlayRgba(d.coverage, d.width, rect, tint), rect.width, rect.height),
      rect.x,
      rect.y,
    );
  };

  const flush = () => {
    const stroke = strokeRef.current;
    if (!stroke || !doc) return;
    stroke.frame = 0;
    let dirty: Rect | null = null;
    for (const p of stroke.pending) dirty = unionRect(dirty, doc.strokeTo(p.x, p.y, p.pressure));
    stroke.pending = [];
    drawRect(doc, dirty);
    if (dirty && canvasRef.current) announce(canvasRef.current, doc, -1);
  };

  /**
   * After a whole-document change made here (a stroke's end, a selection): the canvas is (or,
   * with `announceLater`, is being made) current, so the version change redraws nothing more.
   * The preview hears of it from `announce`, once the canvas shows it.
   */
  const settled = (d: MaskDocument, announceLater = false) => {
    const canvas = canvasRef.current;
    if (feather === 0) {
      drawnRef.current = { canvas, doc: d, version: d.version, feather, tint: tintHex };
      if (canvas && !announceLater) announce(canvas, d, d.version);
    }
    useMaskStore.getState().commit();
    return () => {
      // A change since (a stroke) told the preview already, perhaps before this band landed.
      const now = drawnRef.current;
      if (canvas && now.canvas === canvas && now.doc === d && now.version === d.version) {
        announce(canvas, d, d.version);
      }
    };
  };

  return {
    beginStroke(pointerId: number, p: StrokePoint) {
      if (!doc) return;
      const { tool, brushSize, pressure } = useMaskStore.getState();
      if (tool !== 'brush' && tool !== 'eraser') return;
      drawRect(doc, doc.beginStroke(tool, brushSize, p.x, p.y, p.pressure, pressure));
      strokeRef.current = { pointerId, pending: [], frame: 0 };
    },
    moveStroke(pointerId: number, points: StrokePoint[]): boolean {
      const stroke = strokeRef.current;
      if (!stroke || stroke.pointerId !== pointerId) return false;
      stroke.pending.push(...points);
      if (!stroke.frame) stroke.frame = requestAnimationFrame(flush);
      return true;
    },
    endStroke(pointerId: number) {
      const stroke = strokeRef.current;
      if (!stroke || stroke.pointerId !== pointerId || !doc) return;
      if (stroke.frame) cancelAnimationFrame(stroke.frame);
      flush();
      strokeRef.current = null;
      doc.endStroke();
      settled(doc);
    },
    /**
     * A finished selection: the rectangle it changed is redrawn, the rest stays. A big one (a 4K
     * rectangle is five million pixels) is drawn in bands, one a frame, so the pointer's release
     * never holds a frame; the preview hears of it once the last band is drawn.
     */
    selected(rect: Rect | null) {
      if (!doc) return;
      const bands = rect ? splitRows(rect, BAND_PIXELS) : [];
      const d = doc;
      drawRect(d, bands.shift() ?? null);
      const drawn = settled(d, bands.length > 0);
      const drawNext = () => {
        drawRect(d, bands.shift() ?? null);
        if (bands.length > 0) requestAnimationFrame(drawNext);
        else drawn();
      };
      if (bands.length > 0) requestAnimationFrame(drawNext);
    },
  };
}
