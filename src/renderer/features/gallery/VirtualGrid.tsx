import {
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type DragEvent,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
} from 'react';
import type { ImageRecord } from '../../../shared/admin';
import { adminUrls } from '../../lib/api/urls';
import { inlineThumb } from './inlineThumbs';
import { tileFacts } from './imageFacts';
import {
  gridLayout,
  isFling,
  moveIndex,
  rowCount,
  sameRows,
  scrollToRow,
  visibleRows,
  type VisibleRows,
} from './gridLayout';

interface VirtualGridProps {
  images: readonly ImageRecord[];
  selectedId: string | null;
  onSelect: (image: ImageRecord) => void;
  /** Called when the rows in view come near the end of what is loaded. */
  onNearEnd: () => void;
  /** More images exist beyond `images` (the list shows a loading row). */
  more: boolean;
  /** Ids in the multi-selection (ticked tiles). */
  picked?: ReadonlySet<string>;
  /**
   * Ctrl/Cmd-click (or any click in select mode) toggles a tile in the multi-selection;
   * Shift-click extends it from the last toggled tile.
   */
  onPick?: (index: number, how: 'toggle' | 'range') => void;
  /** Select mode (for touch): a plain click toggles instead of opening the details. */
  selectMode?: boolean;
  /** A tile is dragged (out of the studio). */
  onDragImage?: (event: DragEvent, image: ImageRecord) => void;
}

/** Rows within this many of the loaded end ask for the next page. */
const PREFETCH_ROWS = 6;
/** After the last fling's scroll event, how long until the rows in view load their thumbnails. */
const FLING_SETTLE_MS = 120;
/** The longest the overscan rows of a first screen wait for the tiles in view (see overscanReady). */
const OVERSCAN_WAIT_MS = 500;

/**
 * A grid that renders only the rows in view. Rows are absolutely placed inside a spacer as tall as
 * all of them, so the scrollbar is true to the whole list while the DOM holds a screenful.
 */
export function VirtualGrid({
  images,
  selectedId,
  onSelect,
  onNearEnd,
  more,
  picked,
  onPick,
  selectMode = false,
  onDragImage,
}: VirtualGridProps) {
  const viewport = useRef<HTMLDivElement>(null);
  const spacer = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [scrollTop, setScrollTop] = useState(0);
  const [focusIndex, setFocusIndex] = useState(0);
  const pendingFocus = useRef<number | null>(null);
  // While a fling goes on, tiles that come into view wait for their thumbnail (see isFling).
  const [flinging, setFlinging] = useState(false);
  const lastScroll = useRef({ top: 0, at: 0 });
  const flingTimer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(flingTimer.current), []);
  // On a first paint the overscan rows wait until the tiles in view have their thumbnails (or
  // OVERSCAN_WAIT_MS has passed): with six connections, a dozen overscan thumbnails fetched
  // alongside put the last tile in view a round trip or two later, and their decodes land in the
  // frames the person is waiting on.
  const [overscanReady, setOverscanReady] = useState(false);
  const loadedInView = useRef(new Set<string>());
  const inViewIds = useRef<string[]>([]);
  useEffect(() => {
    if (overscanReady) return;
    const timer = window.setTimeout(() => setOverscanReady(true), OVERSCAN_WAIT_MS);
    return () => window.clearTimeout(timer);
  }, [overscanReady]);
  const tileLoaded = useCallback((id: string) => {
    loadedInView.current.add(id);
    const ids = inViewIds.current;
    if (ids.length > 0 && ids.every((i) => loadedInView.current.has(i))) setOverscanReady(true);
  }, []);

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
  const rangeAt = (top: number): VisibleRows | null =>
    size.width > 0 ? visibleRows(top, size.height, layout.rowHeight, rows) : null;
  const range = rangeAt(scrollTop);

  // A scroll re-renders the grid only when it brings other rows into view: most scroll events
  // of a slow scroll move the tiles (the browser does that alone) and change nothing else.
  const onScroll = (element: HTMLDivElement, now: number) => {
    const top = element.scrollTop;
    const fling = isFling(top - lastScroll.current.top, now - lastScroll.current.at);
    lastScroll.current = { top, at: now };
    if (fling) {
      if (!flinging) setFlinging(true);
      window.clearTimeout(flingTimer.current);
      flingTimer.current = window.setTimeout(() => setFlinging(false), FLING_SETTLE_MS);
    }
    if (!sameRows(rangeAt(top), range)) setScrollTop(top);
  };

  // Tiles call back with their index: one stable function, so a tile re-renders only when its
  // own props change (React.memo), not on every scroll.
  const latest = useRef({ images, onSelect, onPick, selectMode, onDragImage });
  useLayoutEffect(() => {
    latest.current = { images, onSelect, onPick, selectMode, onDragImage };
  });
  const selectIndex = useCallback((index: number) => {
    const image = latest.current.images[index];
    if (!image) return;
    setFocusIndex(index);
    latest.current.onSelect(image);
  }, []);
  const clickIndex = useCallback(
    (index: number, event: MouseEvent) => {
      const { onPick: pick, selectMode: picking } = latest.current;
      if (pick && event.shiftKey) {
        event.preventDefault();
        setFocusIndex(index);
        pick(index, 'range');
      } else if (pick && (event.ctrlKey || event.metaKey || picking)) {
        event.preventDefault();
        setFocusIndex(index);
        pick(index, 'toggle');
      } else {
        selectIndex(index);
      }
    },
    [selectIndex],
  );
  const dragIndex = useCallback((index: number, event: DragEvent) => {
    const image = latest.current.images[index];
    if (image) latest.current.onDragImage?.(event, image);
  }, []);

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

  // Rows in view (without the overscan) ask for their thumbnails first: on a first visit the
  // browser has six connections for the two or three dozen tiles, and the ones in view are what
  // the person is waiting for.
  const inView =
    size.width > 0 ? visibleRows(scrollTop, size.height, layout.rowHeight, rows, 0) : null;
  const tiles: ReactNode[] = [];
  const urgentIds: string[] = [];
  if (range) {
    for (let row = range.first; row <= range.last; row++) {
      const urgent = inView !== null && row >= inView.first && row <= inView.last;
      for (let col = 0; col < layout.columns; col++) {
        const index = row * layout.columns + col;
        const image = images[index];
        if (!image) break;
        if (urgent) urgentIds.push(image.id);
        tiles.push(
          <Tile
            key={image.id}
            image={image}
            index={index}
            top={row * layout.rowHeight}
            left={col * (layout.tile + layout.gap)}
            size={layout.tile}
            selected={image.id === selectedId}
            picked={picked?.has(image.id) ?? false}
            pickMode={selectMode || (picked?.size ?? 0) > 0}
            draggable={onDragImage !== undefined}
            tabbable={index === Math.min(focusIndex, images.length - 1)}
            defer={flinging || (!urgent && !overscanReady)}
            urgent={urgent}
            onLoaded={urgent && !overscanReady ? tileLoaded : undefined}
            onClickIndex={clickIndex}
            onDragIndex={dragIndex}
          />,
        );
      }
    }
  }
  // Read by tileLoaded: which tiles the first screen waits for.
  useEffect(() => {
    inViewIds.current = urgentIds;
  });

  return (
    <div
      ref={viewport}
      className="gallery-viewport"
      onScroll={(e) => onScroll(e.currentTarget, e.timeStamp)}
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
        style={{
          height: rows * layout.rowHeight + (more ? layout.rowHeight : 0),
          // Nothing inside changes the layout or paint of anything outside.
          contain: 'layout paint',
        }}
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
  /** In the multi-selection. */
  picked: boolean;
  /** A selection is being made: tiles show their tick box. */
  pickMode: boolean;
  draggable: boolean;
  tabbable: boolean;
  /** A fling is under way: a tile that has not asked for its thumbnail yet waits. */
  defer: boolean;
  /** In view (not overscan): its thumbnail is fetched ahead of the others. */
  urgent: boolean;
  /** Told when the thumbnail has loaded (tiles in view, until the first screen is complete). */
  onLoaded?: (id: string) => void;
  onClickIndex: (index: number, event: MouseEvent) => void;
  onDragIndex: (index: number, event: DragEvent) => void;
}

const Tile = memo(function Tile({
  image,
  index,
  top,
  left,
  size,
  selected,
  picked,
  pickMode,
  draggable,
  tabbable,
  defer,
  urgent,
  onLoaded,
  onClickIndex,
  onDragIndex,
}: TileProps) {
  const [loaded, setLoaded] = useState(false);
  const facts = tileFacts(image);
  // Once asked for, a thumbnail stays asked for: only tiles that appear during a fling wait.
  const [wanted, setWanted] = useState(!defer);
  if (!defer && !wanted) setWanted(true);
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
      className={`gallery-tile${picked ? ' is-picked' : ''}`}
      style={{
        transform: `translate(${left}px, ${top}px)`,
        width: size,
        // One composited layer per tile costs more than it saves without a GPU (the studio's
        // Chromium rasterises in software): the spacer's rows scroll as one.
        willChange: 'auto',
        contain: 'layout paint style',
      }}
    >
      <button
        type="button"
        className="gallery-thumb"
        // The checkerboard (for transparent images) is painted once the thumbnail is there: a
        // gradient per tile is real raster work in software, for rows that may only fly by.
        style={{ height: size, backgroundImage: loaded ? undefined : 'none' }}
        aria-pressed={selected}
        aria-label={`${image.prompt || 'Untitled image'}, ${image.width} by ${image.height}${
          image.favourite ? ', favourite' : ''
        }${picked ? ', in the selection' : ''}`}
        tabIndex={tabbable ? 0 : -1}
        onClick={(e) => onClickIndex(index, e)}
        draggable={draggable}
        onDragStart={(e) => onDragIndex(index, e)}
        data-testid="gallery-tile"
        data-index={index}
        data-image-id={image.id}
        data-loaded={loaded}
        data-picked={picked}
      >
        {pickMode && (
          <span className={`tile-check${picked ? ' is-on' : ''}`} aria-hidden="true">
            {picked ? '✓' : ''}
          </span>
        )}
        {wanted && (
          <img
            ref={cancelOnUnmount}
            src={inlineThumb(image.id) ?? adminUrls.thumb(image.id)}
            alt=""
            decoding="async"
            fetchPriority={urgent ? 'high' : 'low'}
            draggable={false}
            onLoad={() => {
              setLoaded(true);
              onLoaded?.(image.id);
            }}
          />
        )}
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
      <p className="gallery-facts" title={facts.full} data-testid="gallery-tile-facts">
        <span>{facts.size}</span>
        <span>{facts.cost}</span>
        <span className="gallery-facts-day">{facts.day}</span>
      </p>
    </div>
  );
});
