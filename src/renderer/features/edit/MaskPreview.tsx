import { useEffect, useState } from 'react';
import { saveBlob } from '../../lib/files';
import { useMaskStore } from '../../stores/mask';
import { exportMaskCached } from './mask/exportMask';

interface Preview {
  url: string;
  blob: Blob;
  version: number;
  feather: number;
}

/**
 * The exported mask file itself, as it will be sent: a test (or a curious person) can read its
 * pixels from `data-testid="mask-preview"`. Refreshed shortly after painting stops.
 */
export function MaskPreview() {
  const doc = useMaskStore((s) => s.doc);
  const version = useMaskStore((s) => s.version);
  const feather = useMaskStore((s) => s.feather);
  const empty = useMaskStore((s) => s.empty);
  const [preview, setPreview] = useState<Preview | null>(null);

  useEffect(() => {
    if (!doc || empty) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      exportMaskCached(doc, feather).then(
        (blob) => {
          if (cancelled) return;
          setPreview({ url: URL.createObjectURL(blob), blob, version, feather });
        },
        () => undefined,
      );
    }, 300);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [doc, version, feather, empty]);

  // Each preview's URL lives until the next preview replaces it, or the panel goes.
  useEffect(() => {
    if (!preview) return;
    const { url } = preview;
    return () => URL.revokeObjectURL(url);
  }, [preview]);

  const current = preview && preview.version === version && preview.feather === feather && !empty;
  const state = empty ? 'empty' : current ? 'current' : 'updating';
  return (
    <figure className="mask-preview" data-testid="mask-preview-panel" data-state={state}>
      <figcaption>
        Mask file <span className="muted">(transparent = change)</span>
      </figcaption>
      <div className="mask-preview-frame checker">
        {!empty && preview ? (
          <img
            src={preview.url}
            alt="The mask that will be sent: transparent where the image changes"
            data-testid="mask-preview"
            data-version={preview.version}
            data-state={state}
          />
        ) : (
          <span className="muted">{empty ? 'Empty' : 'Preparing…'}</span>
        )}
      </div>
      <div className="mask-preview-meta">
        <span className="muted">{doc ? `${doc.width} × ${doc.height} PNG with alpha` : ''}</span>
        {!empty && preview && (
          <button
            type="button"
            className="subtle"
            onClick={() => void saveBlob(preview.blob, 'mask.png')}
          >
            Download
          </button>
        )}
      </div>
    </figure>
  );
}
