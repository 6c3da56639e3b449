import type { SelectionMode, SelectionShape } from './mask/selection';

/**
 * The selection being dragged, drawn over the image in image pixels (the stage's scale applies)
 * as marching ants: a dashed outline in black and white that reads on any picture.
 */
export function SelectionOutline(props: {
  shape: SelectionShape;
  mode: SelectionMode;
  width: number;
  height: number;
}) {
  const { shape, mode, width, height } = props;
  const points =
    shape.kind === 'rect'
      ? [
          shape.from,
          { x: shape.to.x, y: shape.from.y },
          shape.to,
          { x: shape.from.x, y: shape.to.y },
        ]
      : shape.points;
  const d = points.map((p) => `${p.x},${p.y}`).join(' ');
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
      <polygon points={d} className="ants-under" />
      <polygon points={d} className="ants" />
    </svg>
  );
}
