import { useEffect, useMemo, useState } from 'react';
import type { ImageRecord } from '../../../shared/admin';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { ViewerActions, ViewerItem } from '../../components/ImageViewer';
import { LazyImageViewer as ImageViewer } from '../../components/LazyImageViewer';
import { ErrorNotice } from '../../components/ErrorNotice';
import { CheckboxField, SelectField } from '../../components/fields';
import { Page } from '../../components/Page';
import { TextField } from '../../components/TextField';
import { imageFileName, saveBlob } from '../../lib/files';
import { admin } from '../../lib/api/admin';
import { adminUrls } from '../../lib/api/urls';
import { subscribeAdminEvents } from '../../lib/api/adminEvents';
import type { GatewayErrorInfo } from '../../lib/api/errors';
import { gateway } from '../../lib/api/images';
import { errorInfo, useDebounced, useResource } from '../../lib/hooks';
import { useEditStore } from '../../stores/edit';
import { useGenerateStore } from '../../stores/generate';
import { useRouteStore } from '../../stores/route';
import { toReference } from '../edit/references';
import { BoardsBar } from './BoardsBar';
import { CompareDialog } from './CompareDialog';
import { startImageDrag } from './dragOut';
import { boardZipName, exportImagesZip, zipName } from './exportZip';
import { parseSearch } from './gallerySearch';
import { ImageDetail } from './ImageDetail';
import { reuseOf } from './reuse';
import { useGalleryList, type GalleryFilters } from './useGalleryList';
import { VirtualGrid } from './VirtualGrid';
import '../../components/admin.css';
import './gallery.css';

const SOURCES = [
  { value: '', label: 'Studio and API' },
  { value: 'studio', label: 'Studio only' },
  { value: 'api', label: 'API only' },
] as const;

/** Every kept image: thumbnails in a virtualised grid, details, re-use, edit, compare. */
export function GalleryPage() {
  const [search, setSearch] = useState('');
  const typed = useDebounced(search.trim(), 250);
  const [favourite, setFavourite] = useState(false);
  const [source, setSource] = useState<GalleryFilters['source']>('');
  const keys = useResource((signal) => admin.keys(signal));
  const parsed = useMemo(() => parseSearch(typed, keys.data ?? []), [typed, keys.data]);
  const [board, setBoard] = useState('');
  const boards = useResource((signal) => admin.boards(signal));
  const list = useGalleryList({ ...parsed.filters, favourite, source, board });
  /** The multi-selection (ids), and the tile a Shift-click extends it from. */
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [anchor, setAnchor] = useState<string | null>(null);
  const [selectMode, setSelectMode] = useState(false);
  const [exporting, setExporting] = useState<{ done: number; total: number } | null>(null);
  const navigate = useRouteStore((s) => s.navigate);

  const [selected, setSelected] = useState<ImageRecord | null>(null);
  const [compare, setCompare] = useState<ImageRecord[]>([]);
  const [comparing, setComparing] = useState(false);
  const [deleting, setDeleting] = useState<ImageRecord | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  /** The full-window viewer: over the listed images (following the selection) or a chain. */
  const [viewer, setViewer] = useState<
    { over: 'list' } | { over: 'chain'; steps: ImageRecord[]; index: number } | null
  >(null);
  const [failure, setFailure] = useState<GatewayErrorInfo | null>(null);

  const { add } = list;
  useEffect(() => subscribeAdminEvents({ onImage: add }), [add]);

  const names = new Map((keys.data ?? []).map((k) => [k.id, k.name] as const));
  const keyName = (id: string | null) => (id === null ? null : (names.get(id) ?? null));

  const run = async (what: string, work: () => Promise<void>) => {
    setBusy(what);
    setFailure(null);
    try {
      await work();
    } catch (e) {
      setFailure(errorInfo(e));
    } finally {
      setBusy(null);
    }
  };

  const toggleFavourite = (image: ImageRecord) =>
    run('favourite', async () => {
      const updated = await admin.setFavourite(image.id, !image.favourite);
      list.replace(updated);
      setSelected(updated);
    });

  const reuse = (image: ImageRecord) => {
    const generate = useGenerateStore.getState();
    const { draft, params } = reuseOf(image, generate.params);
    generate.apply(draft, params);
    navigate('/generate');
  };

  const editThis = (image: ImageRecord) =>
    run('edit', async () => {
      const blob = await gateway.imageFile(image.id);
      const name = imageFileName(blob, new Date(image.createdAt), image.index);
      const reference = await toReference(blob, name, image.id);
      useEditStore.getState().startFrom(reference);
      navigate('/edit');
    });

  const download = (image: ImageRecord) =>
    run('download', async () => {
      const blob = await gateway.imageFile(image.id);
      await saveBlob(blob, imageFileName(blob, new Date(image.createdAt), image.index));
    });

  const toggleCompare = (image: ImageRecord) =>
    setCompare((c) =>
      c.some((i) => i.id === image.id)
        ? c.filter((i) => i.id !== image.id)
        : [...c, image].slice(-2),
    );

  const pick = (index: number, how: 'toggle' | 'range') => {
    const image = list.images[index];
    if (!image) return;
    const from = anchor === null ? -1 : list.images.findIndex((i) => i.id === anchor);
    if (how === 'range' && from !== -1) {
      const [a, b] = from < index ? [from, index] : [index, from];
      setPicked((p) => new Set([...p, ...list.images.slice(a, b + 1).map((i) => i.id)]));
    } else {
      setPicked((p) => {
        const next = new Set(p);
        if (!next.delete(image.id)) next.add(image.id);
        return next;
      });
    }
    setAnchor(image.id);
  };
  const clearPicked = () => {
    setPicked(new Set());
    setAnchor(null);
  };

  /** The selection in list order; images it holds that are no longer listed are left out. */
  const pickedImages = list.images.filter((i) => picked.has(i.id));
  const exportZip = () =>
    run('export', async () => {
      const images = pickedImages;
      setExporting({ done: 0, total: images.length });
      try {
        const zip = await exportImagesZip(
          images,
          { imageFile: gateway.imageFile, maskFile: gateway.imageMask, keyName },
          (done, total) => setExporting({ done, total }),
        );
        await saveBlob(zip, zipName(images.length));
      } finally {
        setExporting(null);
      }
    });

  /** Every image of the chosen board, page by page, into one ZIP with metadata. */
  const exportBoard = () =>
    run('export', async () => {
      const chosen = (boards.data ?? []).find((b) => b.id === board);
      if (!chosen) return;
      const images: ImageRecord[] = [];
      let before: number | undefined;
      do {
        const page = await gateway.listImages({ board, limit: 200, before });
        images.push(...page.images);
        before = page.nextBefore ?? undefined;
      } while (before !== undefined);
      setExporting({ done: 0, total: images.length });
      try {
        const zip = await exportImagesZip(
          images,
          { imageFile: gateway.imageFile, maskFile: gateway.imageMask, keyName },
          (done, total) => setExporting({ done, total }),
        );
        await saveBlob(zip, boardZipName(chosen.name, images.length));
      } finally {
        setExporting(null);
      }
    });

  const filtered = Boolean(typed || favourite || source || board);
  return (
    <Page
      id="gallery"
      title="Gallery"
      description="Every image from the studio and from apps calling the gateway, with what it cost."
      ready={list.loaded}
      className="page-gallery"
    >
      <div className="toolbar">
        <TextField
          // The syntax goes in the label and its tooltip: a hint line under the box would push the
          // grid and the detail panel down on a laptop screen.
          label={
            <>
              Search{' '}
              <span
                className="muted"
                title="Words search prompts. Filters: model:, size: (1024x1536), key: (a key's name, in quotes if it has spaces), date:, from: and to: (2026-11-24 or 2026-11)."
              >
                prompts, or model: size: key: date:
              </span>
            </>
          }
          type="search"
          value={search}
          onChange={setSearch}
          placeholder="lighthouse model:image-model-2 size:1024x1536 key:name date:2026-11-24"
          error={parsed.problems.length > 0 ? parsed.problems.join('; ') : null}
          className="grow"
          testId="gallery-search"
        />
        <SelectField
          label="Made by"
          value={source}
          options={SOURCES}
          onChange={setSource}
          testId="gallery-source"
        />
        <CheckboxField
          label="Favourites only"
          checked={favourite}
          onChange={setFavourite}
          testId="gallery-favourites"
        />
        <button
          type="button"
          className="gallery-select-mode"
          aria-pressed={selectMode}
          onClick={() => setSelectMode((on) => !on)}
          title="Tap images to select them (or Ctrl/Cmd-click and Shift-click at any time)"
          data-testid="gallery-select-mode"
        >
          {selectMode ? 'Done selecting' : 'Select'}
        </button>
      </div>

      {(picked.size > 0 || selectMode) && (
        <div
          className="selection-bar"
          role="region"
          aria-label="Selection"
          data-testid="selection-bar"
        >
          <span aria-live="polite" data-testid="selection-count" data-count={pickedImages.length}>
            {pickedImages.length === 0
              ? 'Click images to select them.'
              : `${pickedImages.length} image${pickedImages.length === 1 ? '' : 's'} selected`}
          </span>
          <button
            type="button"
            className="primary"
            disabled={pickedImages.length === 0 || exporting !== null}
            onClick={() => void exportZip()}
            data-testid="selection-export"
            title="A ZIP of the images, each with its prompt, parameters, mask and cost (in a .json beside it, and inside each PNG)"
          >
            {exporting
              ? `Exporting ${exporting.done} of ${exporting.total}…`
              : 'Export ZIP with metadata'}
          </button>
          <button
            type="button"
            onClick={() => setPicked(new Set(list.images.map((i) => i.id)))}
            data-testid="selection-all"
          >
            Select all {list.images.length}
          </button>
          <button
            type="button"
            onClick={() => {
              clearPicked();
              setSelectMode(false);
            }}
            data-testid="selection-clear"
          >
            Clear
          </button>
        </div>
      )}

      {compare.length > 0 && (
        <div
          className="compare-tray"
          role="region"
          aria-label="Comparison"
          data-testid="compare-tray"
        >
          <span>
            {compare.length === 1 ? 'Choose one more image to compare with.' : 'Two images chosen.'}
          </span>
          <button
            type="button"
            className="primary"
            disabled={compare.length < 2}
            onClick={() => setComparing(true)}
            data-testid="compare-open"
          >
            Compare side by side
          </button>
          <button type="button" onClick={() => setCompare([])}>
            Clear
          </button>
        </div>
      )}

      {list.error && <ErrorNotice error={list.error} testId="gallery-error" />}
      {failure && <ErrorNotice error={failure} testId="gallery-action-error" />}

      <div className={`gallery-layout ${selected ? 'with-detail' : ''}`}>
        <div className="gallery-main">
          {/* Above the grid, not the page: the detail panel keeps the window's full height. */}
          <BoardsBar
            boards={boards.data ?? []}
            current={board}
            onCurrent={setBoard}
            onChanged={boards.reload}
            onExport={() => void exportBoard()}
            exporting={exporting !== null}
            run={run}
          />
          {list.loaded && list.images.length === 0 && !list.error ? (
            <p className="empty-state" data-testid="gallery-empty">
              {filtered
                ? 'No image matches these filters.'
                : 'No images yet. What you generate or edit appears here, and so do images other apps make through the gateway.'}
            </p>
          ) : (
            <VirtualGrid
              images={list.images}
              selectedId={selected?.id ?? null}
              onSelect={setSelected}
              onNearEnd={list.loadMore}
              more={list.more}
              picked={picked}
              onPick={pick}
              selectMode={selectMode}
              onDragImage={(event, image) =>
                startImageDrag(event.nativeEvent, image, gateway.imageFile)
              }
            />
          )}
        </div>
        {selected && (
          <ImageDetail
            key={selected.id}
            image={selected}
            keyName={keyName}
            busy={busy}
            inCompare={compare.some((i) => i.id === selected.id)}
            onSelect={setSelected}
            onView={() => setViewer({ over: 'list' })}
            onViewChain={(steps, index) => setViewer({ over: 'chain', steps, index })}
            onFavourite={() => void toggleFavourite(selected)}
            onReuse={() => reuse(selected)}
            onEdit={() => void editThis(selected)}
            onDownload={() => void download(selected)}
            onCompare={() => toggleCompare(selected)}
            onDelete={() => setDeleting(selected)}
            onClose={() => setSelected(null)}
          />
        )}
      </div>

      {viewer?.over === 'list' && selected && (
        <ListViewer
          images={list.images}
          selected={selected}
          onSelect={setSelected}
          onClose={() => setViewer(null)}
          actions={{
            favourite: { on: selected.favourite, toggle: () => void toggleFavourite(selected) },
            onEdit: () => void editThis(selected),
            onDownload: () => void download(selected),
            onDelete: () => {
              setViewer(null);
              setDeleting(selected);
            },
          }}
        />
      )}
      {viewer?.over === 'chain' && (
        <ImageViewer
          items={viewer.steps.map(viewerItem)}
          index={viewer.index}
          onIndex={(index) => setViewer({ ...viewer, index })}
          onClose={() => setViewer(null)}
          initialAgainst={viewer.steps[viewer.index - 1]?.id ?? null}
        />
      )}
      {comparing && compare.length === 2 && (
        <CompareDialog
          images={[compare[0]!, compare[1]!]}
          keyName={keyName}
          onClose={() => setComparing(false)}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this image?"
        confirmLabel="Delete image"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await admin.deleteImage(deleting.id);
          list.remove(deleting.id);
          setCompare((c) => c.filter((i) => i.id !== deleting.id));
          if (selected?.id === deleting.id) setSelected(null);
        }}
      >
        <p>
          The image file, its thumbnail and its mask are removed from disk. Its usage record stays,
          and images edited from it keep their own files.
        </p>
      </ConfirmDialog>
    </Page>
  );
}

const viewerItem = (image: ImageRecord): ViewerItem => ({
  key: image.id,
  url: adminUrls.file(image.id),
  label: image.prompt || image.id,
});

/** Images either side of the one in view that it can be compared with (a long list stays short). */
const NEIGHBOURS = 25;

/**
 * The viewer over the gallery as listed: arrows move the selection (the details follow); it can
 * compare with the image this one was edited from, or a neighbour.
 */
function ListViewer(props: {
  images: ImageRecord[];
  selected: ImageRecord;
  onSelect: (image: ImageRecord) => void;
  onClose: () => void;
  actions: ViewerActions;
}) {
  const { images, selected } = props;
  const index = Math.max(
    0,
    images.findIndex((i) => i.id === selected.id),
  );
  const near = images.slice(Math.max(0, index - NEIGHBOURS), index + NEIGHBOURS + 1);
  const parent = selected.parentId ? images.find((i) => i.id === selected.parentId) : undefined;
  const against = parent && !near.includes(parent) ? [parent, ...near] : near;
  return (
    <ImageViewer
      items={images.map(viewerItem)}
      index={index}
      onIndex={(i) => {
        const next = images[i];
        if (next) props.onSelect(next);
      }}
      onClose={props.onClose}
      against={against.map(viewerItem)}
      initialAgainst={parent?.id ?? null}
      actions={props.actions}
    />
  );
}
