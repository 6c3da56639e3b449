import { forwardRef, useImperativeHandle, useRef } from 'react';
import type { Point, SelectionMode, SelectionShape } from './mask/selection';

/** Moves the outline without a React render: the pointer's path can be long and fast. */
export interface OutlineHandle {
  show(shape: SelectionShape): void;
}

const cornersOf = (shape: SelectionShape): readonly Point[] =>
  shape.kind === 'rect'
    ? [shape.from, { x: shape.to.x, y: shape.from.y }, shape.to, { x: shape.from.x, y: shape.to.y }]
    : shape.points;

const pointsAttribute = (shape: SelectionShape) =>
  cornersOf(shape)
    .map((p) => `${p.x},${p.y}`)
    .join(' ');

/**
 * The selection being dragged, as marching ants: a dashed outline in black and white that reads
 * on any picture. Drawn in the viewport's own pixels (the group carries the image's zoom and
 * pan), not inside the zoomed stage: there the outline's layer was image-sized, and redrawing
 * the marching dashes over a 4K image every frame took longer than a frame (issue 22).
 */
export const SelectionOutline = forwardRef<
  OutlineHandle,
  { initial: SelectionShape; mode: SelectionMode; view: { x: number; y: number; zoom: number } }
>(function SelectionOutline({ initial, mode, view }, ref) {
  const under = useRef<SVGPolygonElement>(null);
  const ants = useRef<SVGPolygonElement>(null);
  useImperativeHandle(ref, () => ({
    show(shape) {
      const points = pointsAttribute(shape);
      under.current?.setAttribute('points', points);
      ants.current?.setAttribute('points', points);
    },
  }));
  const points = pointsAttribute(initial);
  return (
    <svg
      className="selection-outline"
      width="100%"
      height="100%"
      data-testid="selection-outline"
      data-mode={mode}
      aria-hidden="true"
    >
      <g transform={`translate(${view.x} ${view.y}) scale(${view.zoom})`}>
        <polygon ref={under} points={points} className="ants-under" />
        <polygon ref={ants} points={points} className="ants" />
      </g>
    </svg>
  );
});
