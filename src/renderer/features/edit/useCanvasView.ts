import { useEffect, useEffectEvent, useState, type RefObject } from 'react';
import { fitView, zoomAround, type View } from './canvasView';

/**
 * Where the image sits in the canvas's viewport: fitted to the viewport's size (followed as the
 * window changes) until the person zooms (the wheel, around the pointer; buttons and keys, around
 * the middle) or pans; `fit` goes back to fitted.
 */
export function useCanvasView(
  viewportRef: RefObject<HTMLDivElement | null>,
  doc: { width: number; height: number } | null,
) {
  const [viewportSize, setViewportSize] = useState<{ width: number; height: number } | null>(null);
  const [userView, setUserView] = useState<View | null>(null);

  useEffect(() => {
    const viewport = viewportRef.current;
    if (!viewport) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry)
        setViewportSize({ width: entry.contentRect.width, height: entry.contentRect.height });
    });
    observer.observe(viewport);
    return () => observer.disconnect();
  }, [viewportRef]);

  const fitted = doc && viewportSize ? fitView(doc, viewportSize) : null;
  const view = userView && userView.doc === doc ? userView : fitted;

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
  }, [viewportRef]);

  const zoomTo = (zoom: number) => {
    if (!view || !viewportSize) return;
    setUserView(zoomAround(view, zoom, viewportSize.width / 2, viewportSize.height / 2));
  };
  return {
    view,
    /** Sets the view the person chose (a pan). */
    setView: setUserView,
    zoomBy: (factor: number) => {
      if (view) zoomTo(view.zoom * factor);
    },
    zoomTo,
    fit: () => setUserView(null),
  };
}
