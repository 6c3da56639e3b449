/** The canvas's zoom and pan: where the image sits in the viewport, in viewport pixels. */
export const ZOOM_MIN = 0.1;
export const ZOOM_MAX = 8;

export interface View {
  /** The document the view was made for: a new image starts fitted again. */
  doc: object;
  width: number;
  height: number;
  zoom: number;
  x: number;
  y: number;
}

export const clampZoom = (z: number) => Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, z));

export function fitView(
  doc: { width: number; height: number },
  size: { width: number; height: number },
): View {
  const zoom = clampZoom(Math.min(size.width / doc.width, size.height / doc.height) * 0.94);
  return {
    doc,
    width: doc.width,
    height: doc.height,
    zoom,
    x: (size.width - doc.width * zoom) / 2,
    y: (size.height - doc.height * zoom) / 2,
  };
}

/** Zooms to `zoom` keeping the image point under (cx, cy) (viewport pixels) in place. */
export function zoomAround(view: View, zoom: number, cx: number, cy: number): View {
  const z = clampZoom(zoom);
  const k = z / view.zoom;
  return { ...view, zoom: z, x: cx - (cx - view.x) * k, y: cy - (cy - view.y) * k };
}
