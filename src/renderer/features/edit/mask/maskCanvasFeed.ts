import type { MaskDocument } from './maskDocument';

/**
 * What the mask canvas shows, announced by the editor each time it draws: the preview copies
 * that canvas (scaled) instead of exporting and decoding a PNG, so it follows every change within
 * a frame and shows exactly what the canvas shows.
 */
export interface MaskDrawing {
  canvas: HTMLCanvasElement;
  doc: MaskDocument;
  /** The mask version the canvas shows; -1 while a stroke is being painted. */
  version: number;
  feather: number;
}

let latest: MaskDrawing | null = null;
const listeners = new Set<(drawing: MaskDrawing) => void>();

export function announceMaskDrawn(drawing: MaskDrawing): void {
  latest = drawing;
  for (const listener of listeners) listener(drawing);
}

/** The last drawing of a canvas still in the document, if any. */
export function latestMaskDrawing(): MaskDrawing | null {
  return latest?.canvas.isConnected ? latest : null;
}

export function onMaskDrawn(listener: (drawing: MaskDrawing) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
