import { useEffect, useState } from 'react';
import { Dialog } from '../../components/Dialog';
import { GatewayError } from '../../lib/api/errors';
import { gateway } from '../../lib/api/images';
import type { ImageRecord } from '../../../shared/admin';

interface GalleryPickerProps {
  open: boolean;
  onClose: () => void;
  onPick: (record: ImageRecord) => Promise<void>;
}

const PAGE = 48;

/** Choose a gallery image as a reference (GET /api/admin/images). */
export function GalleryPicker({ open, onClose, onPick }: GalleryPickerProps) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Choose from the gallery"
      testId="gallery-picker"
      wide
    >
      {open && <GalleryGrid onPick={onPick} />}
    </Dialog>
  );
}

function GalleryGrid({ onPick }: { onPick: (record: ImageRecord) => Promise<void> }) {
  const [images, setImages] = useState<ImageRecord[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [phase, setPhase] = useState<'loading' | 'ready' | 'error'>('loading');
  const [error, setError] = useState<string | null>(null);
  const [picking, setPicking] = useState<string | null>(null);
  const [before, setBefore] = useState<number | undefined>(undefined);

  useEffect(() => {
    const controller = new AbortController();
    gateway.listImages({ limit: PAGE, before }, controller.signal).then(
      (page) => {
        setImages((old) => (before === undefined ? page.images : [...old, ...page.images]));
        setNext(page.nextBefore);
        setPhase('ready');
      },
      (e: unknown) => {
        if (controller.signal.aborted) return;
        setPhase('error');
        setError(
          e instanceof GatewayError && e.status === 404
            ? 'The gallery is not available from this gateway yet.'
            : e instanceof Error
              ? e.message
              : String(e),
        );
      },
    );
    return () => controller.abort();
  }, [before]);

  const pick = async (record: ImageRecord) => {
    setPicking(record.id);
    try {
      await onPick(record);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setPicking(null);
    }
  };

  return (
    <div className="gallery-picker" data-ready={phase !== 'loading' ? 'true' : 'false'}>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      {phase === 'ready' && images.length === 0 && (
        <p className="muted">No images yet: generate some first.</p>
      )}
      <ul className="thumb-grid">
        {images.map((record) => (
          <li key={record.id}>
            <button
              type="button"
              className="thumb"
              onClick={() => void pick(record)}
              disabled={picking !== null}
              aria-label={`Use image: ${record.prompt || record.id}, ${record.width} by ${record.height}`}
              data-testid="gallery-pick"
              data-image-id={record.id}
            >
              <Thumb id={record.id} />
              <span className="thumb-caption">
                {picking === record.id ? 'Loading…' : record.prompt || record.id}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {phase === 'loading' && <p className="muted">Loading…</p>}
      {next !== null && phase === 'ready' && (
        <button type="button" onClick={() => setBefore(next)}>
          Show more
        </button>
      )}
    </div>
  );
}

/** The admin API needs the studio header, so thumbnails are fetched, not linked. */
function Thumb({ id }: { id: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    let created: string | null = null;
    gateway.imageThumb(id, controller.signal).then(
      (blob) => {
        created = URL.createObjectURL(blob);
        setUrl(created);
      },
      () => undefined,
    );
    return () => {
      controller.abort();
      if (created) URL.revokeObjectURL(created);
    };
  }, [id]);
  return url ? (
    <img src={url} alt="" loading="lazy" />
  ) : (
    <span className="thumb-placeholder" aria-hidden="true" />
  );
}
