import { useEffect, useRef, useState } from 'react';
import { saveBlob } from '../../lib/files';
import type { ReferenceImage } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import type { MaskDocument } from './mask/maskDocument';
import { exportMaskCached } from './mask/exportMask';
import { latestMaskDrawing, onMaskDrawn, type MaskDrawing } from './mask/maskCanvasFeed';

/** The preview's longest side in CSS pixels. */
const PREVIEW_EDGE = 240;

interface Shown {
  doc: MaskDocument;
  version: number;
  feather: number;
}

/**
 * The mask in the canvas's own language: the image with the same magenta overlay, copied from the
 * mask canvas (scaled) in the frame after each change the editor draws (not during a stroke). No
 * PNG is encoded for it: the file itself (feathered, exact size) is made when it is sent or
 * downloaded.
 * `data-state` is `current` only while the preview shows the mask's present version and feather.
 */
export function MaskPreview({ source }: { source: ReferenceImage }) {
  const doc = useMaskStore((s) => s.doc);
  const version = useMaskStore((s) => s.version);
  const feather = useMaskStore((s) => s.feather);
  const empty = useMaskStore((s) => s.empty);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [shown, setShown] = useState<Shown | null>(null);
  const [image, setImage] = useState<HTMLImageElement | null>(null);
  const [saving, setSaving] = useState(false);

  // The source image, decoded once per reference.
  useEffect(() => {
    let cancelled = false;
    const img = new Image();
    img.src = source.url;
    img.decode().then(
      () => {
        if (!cancelled) setImage(img);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
      setImage(null);
    };
  }, [source.url]);

  useEffect(() => {
    if (!image) return;
    let frame = 0;
    let pending: MaskDrawing | null = null;
    // The image behind the mask, scaled once to the preview's size: copying the full-size image
    // (and the mask) every frame of a stroke on a 2048x2048 picture halved the canvas's frame rate.
    let background: HTMLCanvasElement | null = null;
    const backgroundFor = (width: number, height: number) => {
      if (background?.width === width && background.height === height) return background;
      background = document.createElement('canvas');
      background.width = width;
      background.height = height;
      background.getContext('2d')?.drawImage(image, 0, 0, width, height);
      return background;
    };
    const draw = () => {
      frame = 0;
      const drawing = pending;
      const canvas = canvasRef.current;
      const ctx = canvas?.getContext('2d');
      if (!drawing || !canvas || !ctx) return;
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(backgroundFor(canvas.width, canvas.height), 0, 0);
      ctx.imageSmoothingQuality = 'low';
      ctx.drawImage(drawing.canvas, 0, 0, canvas.width, canvas.height);
      setShown((was) =>
        was?.doc === drawing.doc &&
        was.version === drawing.version &&
        was.feather === drawing.feather
          ? was
          : { doc: drawing.doc, version: drawing.version, feather: drawing.feather },
      );
    };
    const schedule = (drawing: MaskDrawing) => {
      // Not during a stroke: a scaled copy of a 2048x2048 mask costs tens of milliseconds here
      // (software raster), and taking one even a few times a second took the canvas from 60 to
      // 43 frames a second. The person watches the canvas while painting; the preview follows
      // the stroke's end, undo, invert and feather in the next frame.
      if (drawing.version === -1) return;
      pending = drawing;
      if (!frame) frame = requestAnimationFrame(draw);
    };
    const first = latestMaskDrawing();
    if (first) schedule(first);
    const stop = onMaskDrawn(schedule);
    return () => {
      stop();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [image]);

  const download = async () => {
    if (!doc || empty) return;
    setSaving(true);
    try {
      await saveBlob(await exportMaskCached(doc, feather), 'mask.png');
    } finally {
      setSaving(false);
    }
  };

  const scale = doc ? Math.min(1, PREVIEW_EDGE / Math.max(doc.width, doc.height)) : 1;
  const width = doc ? Math.max(1, Math.round(doc.width * scale)) : 1;
  const height = doc ? Math.max(1, Math.round(doc.height * scale)) : 1;
  const current =
    !!shown && shown.doc === doc && shown.version === version && shown.feather === feather;
  const state = current ? (empty ? 'empty' : 'current') : 'updating';
  return (
    <figure className="mask-preview" data-testid="mask-preview-panel" data-state={state}>
      <figcaption>
        Mask <span className="muted">(magenta = change)</span>
      </figcaption>
      <div className="mask-preview-frame">
        <canvas
          ref={canvasRef}
          width={width}
          height={height}
          role="img"
          aria-label={
            empty
              ? 'Nothing painted yet'
              : 'The image with the area that will change marked in magenta'
          }
          data-testid="mask-preview"
          data-version={shown?.version ?? ''}
          data-feather={shown?.feather ?? ''}
          data-state={state}
        />
      </div>
      <div className="mask-preview-meta">
        <span className="muted">
          {empty ? 'Nothing painted' : doc ? `Sent as a ${doc.width} × ${doc.height} PNG` : ''}
        </span>
        {!empty && (
          <button
            type="button"
            className="subtle"
            onClick={() => void download()}
            disabled={saving}
            data-testid="mask-download"
          >
            {saving ? 'Preparing…' : 'Download'}
          </button>
        )}
      </div>
    </figure>
  );
}
