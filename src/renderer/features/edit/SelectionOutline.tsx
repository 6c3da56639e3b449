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
 * The selection being dragged, drawn over the image in image pixels (the stage's scale applies)
 * as marching ants: a dashed outline in black and white that reads on any picture.
 */
export const SelectionOutline = forwardRef<
  OutlineHandle,
  { initial: SelectionShape; mode: SelectionMode; width: number; height: number }
>(function SelectionOutline({ initial, mode, width, height }, ref) {
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
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      data-testid="selection-outline"
      data-mode={mode}
      aria-hidden="true"
    >
      <polygon ref={under} points={points} className="ants-under" />
      <polygon ref={ants} points={points} className="ants" />
    </svg>
  );
});
