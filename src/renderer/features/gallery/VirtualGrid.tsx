import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import type { ImageRecord } from '../../../shared/admin';
import { adminUrls } from '../../lib/gateway';
import { gridLayout, moveIndex, rowCount, scrollToRow, visibleRows } from './gridLayout';

interface VirtualGridProps {
  images: readonly ImageRecord[];
  selectedId: string | null;
  onSelect: (image: ImageRecord) => void;
  /** Called when the rows in view come near the end of what is loaded. */
  onNearEnd: () => void;
  /** More images exist beyond `images` (the list shows a loading row). */
  more: boolean;
}

/** Rows within this many of the loaded end ask for the next page. */
const PREFETCH_ROWS = 6;

/**
 * A grid that renders only the rows in view. Rows are absolutely placed inside a spacer as tall as
 * all of them, so the scrollbar is true to the whole list while the DOM holds a screenful.
 */
export function VirtualGrid({ images, selectedId, onSelect, onNearEnd, more }: VirtualGridProps) {
  const viewport = useRef<HTMLDivElement>(null);
  const spacer = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [scrollTop, setScrollTop] = useState(0);
  const [focusIndex, setFocusIndex] = useState(0);
  const pendingFocus = useRef<number | null>(null);

  useLayoutEffect(() => {
    const element = viewport.current;
    const inner = spacer.current;
    if (!element || !inner) return;
    // The spacer's width is the viewport's less its padding: the width the tiles share.
    const measure = () => setSize({ width: inner.clientWidth, height: element.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const layout = gridLayout(size.width);
  const rows = rowCount(images.length, layout.columns);
  const range = size.width > 0 ? visibleRows(scrollTop, size.height, layout.rowHeight, rows) : null;

  const lastRow = range?.last ?? -1;
  useEffect(() => {
    if (more && lastRow >= rows - PREFETCH_ROWS) onNearEnd();
  }, [lastRow, rows, more, onNearEnd]);

  // Keyboard focus lands on a tile once its row is rendered.
  useEffect(() => {
    const index = pendingFocus.current;
    if (index === null) return;
    const tile = viewport.current?.querySelector<HTMLButtonElement>(`[data-index="${index}"]`);
    if (tile) {
      pendingFocus.current = null;
      tile.focus({ preventScroll: true });
    }
  });

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const element = viewport.current;
    if (!element) return;
    const next = moveIndex(event.key, focusIndex, images.length, layout.columns);
    if (next === null) return;
    event.preventDefault();
    setFocusIndex(next);
    pendingFocus.current = next;
    const top = scrollToRow(
      Math.floor(next / layout.columns),
      element.scrollTop,
      element.clientHeight,
      layout,
    );
    if (top !== null) element.scrollTop = top;
    const image = images[next];
    if (image) onSelect(image);
  };

  const tiles: ReactNode[] = [];
  if (range) {
    for (let row = range.first; row <= range.last; row++) {
      for (let col = 0; col < layout.columns; col++) {
        const index = row * layout.columns + col;
        const image = images[index];
        if (!image) break;
        tiles.push(
          <Tile
            key={image.id}
            image={image}
            index={index}
            top={row * layout.rowHeight}
            left={col * (layout.tile + layout.gap)}
            size={layout.tile}
            selected={image.id === selectedId}
            tabbable={index === Math.min(focusIndex, images.length - 1)}
            onSelect={() => {
              setFocusIndex(index);
              onSelect(image);
            }}
          />,
        );
      }
    }
  }

  return (
    <div
      ref={viewport}
      className="gallery-viewport"
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      onKeyDown={onKeyDown}
      data-testid="gallery-grid"
      data-count={images.length}
      data-rendered={tiles.length}
      data-columns={layout.columns}
    >
      <div
        ref={spacer}
        className="gallery-spacer"
        role="list"
        aria-label={`Images, ${images.length}${more ? ' and more' : ''}`}
        style={{ height: rows * layout.rowHeight + (more ? layout.rowHeight : 0) }}
      >
        {tiles}
        {more && range && range.last >= rows - 1 && (
          <p className="gallery-more muted" style={{ top: rows * layout.rowHeight }}>
            Loading more…
          </p>
        )}
      </div>
    </div>
  );
}

interface TileProps {
  image: ImageRecord;
  index: number;
  top: number;
  left: number;
  size: number;
  selected: boolean;
  tabbable: boolean;
  onSelect: () => void;
}

function Tile({ image, index, top, left, size, selected, tabbable, onSelect }: TileProps) {
  const [loaded, setLoaded] = useState(false);
  // A tile scrolled away before its thumbnail arrived drops the download, so a fast scroll does
  // not leave a queue of thumbnails nobody sees ahead of the ones in view and the next page.
  const cancelOnUnmount = useCallback((img: HTMLImageElement | null) => {
    if (!img) return;
    return () => {
      if (!img.complete) img.removeAttribute('src');
    };
  }, []);
  return (
    <div
      role="listitem"
      className="gallery-tile"
      style={{ transform: `translate(${left}px, ${top}px)`, width: size }}
    >
      <button
        type="button"
        className="gallery-thumb"
        style={{ height: size }}
        aria-pressed={selected}
        aria-label={`${image.prompt || 'Untitled image'}, ${image.width} by ${image.height}${
          image.favourite ? ', favourite' : ''
        }`}
        tabIndex={tabbable ? 0 : -1}
        onClick={onSelect}
        data-testid="gallery-tile"
        data-index={index}
        data-image-id={image.id}
        data-loaded={loaded}
      >
        <img
          ref={cancelOnUnmount}
          src={adminUrls.thumb(image.id)}
          alt=""
          decoding="async"
          draggable={false}
          onLoad={() => setLoaded(true)}
        />
        {image.favourite && (
          <span className="tile-star" aria-hidden="true">
            ★
          </span>
        )}
        {image.source === 'api' && <span className="tile-source">API</span>}
      </button>
      <p className="gallery-caption" title={image.prompt}>
        {image.prompt || <span className="muted">No prompt</span>}
      </p>
    </div>
  );
}
