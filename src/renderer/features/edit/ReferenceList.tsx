import { useRef, useState, type DragEvent } from 'react';
import { LIMITS } from '../../../shared/imageParams';
import { useEditStore } from '../../stores/edit';
import { FORMAT_LABELS } from './imageFiles';

interface ReferenceListProps {
  onAddFiles: (files: File[]) => void;
  onOpenGallery: () => void;
}

/** The reference images in order; the first is the one the mask applies to. */
export function ReferenceList({ onAddFiles, onOpenGallery }: ReferenceListProps) {
  const references = useEditStore((s) => s.references);
  const remove = useEditStore((s) => s.removeReference);
  const move = useEditStore((s) => s.moveReference);
  const fileRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState<string | null>(null);

  const onDrop = (e: DragEvent<HTMLLIElement>, index: number) => {
    const id = e.dataTransfer.getData('application/x-atelier-reference');
    if (!id) return; // files dropped here are handled by the page
    e.preventDefault();
    e.stopPropagation();
    move(id, index);
    setDragging(null);
  };

  return (
    <section className="references" aria-labelledby="references-heading" data-testid="references">
      <div className="section-heading">
        <h2 id="references-heading">
          Images{' '}
          <span className="muted">
            {references.length} / {LIMITS.maxInputImages}
          </span>
        </h2>
        <div className="section-actions">
          <button
            type="button"
            onClick={() => fileRef.current?.click()}
            disabled={references.length >= LIMITS.maxInputImages}
            data-testid="add-files"
          >
            Add files…
          </button>
          <button
            type="button"
            onClick={onOpenGallery}
            disabled={references.length >= LIMITS.maxInputImages}
            data-testid="open-gallery-picker"
          >
            From gallery…
          </button>
        </div>
        <input
          ref={fileRef}
          type="file"
          accept="image/png,image/jpeg,image/webp"
          multiple
          hidden
          aria-label="Reference image files"
          data-testid="reference-file-input"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = '';
            if (files.length) onAddFiles(files);
          }}
        />
      </div>
      {references.length === 0 ? (
        <p className="muted drop-hint">
          Drop, paste (Ctrl+V) or add up to 16 images. The first one is masked.
        </p>
      ) : (
        <ol className="reference-list">
          {references.map((ref, index) => (
            <li
              key={ref.id}
              className={`reference ${index === 0 ? 'is-source' : ''} ${dragging === ref.id ? 'is-dragging' : ''}`}
              draggable
              onDragStart={(e) => {
                e.dataTransfer.setData('application/x-atelier-reference', ref.id);
                e.dataTransfer.effectAllowed = 'move';
                setDragging(ref.id);
              }}
              onDragEnd={() => setDragging(null)}
              onDragOver={(e) => {
                if (e.dataTransfer.types.includes('application/x-atelier-reference'))
                  e.preventDefault();
              }}
              onDrop={(e) => onDrop(e, index)}
              data-testid="reference"
              data-index={index}
              data-gallery-id={ref.galleryId ?? undefined}
            >
              <img
                src={ref.url}
                alt={`${index === 0 ? 'Source (masked)' : `Reference ${index + 1}`}: ${ref.name}`}
              />
              <div className="reference-info">
                <span className="reference-name" title={ref.name}>
                  {index === 0 && <span className="tag">Masked</span>} {ref.name}
                </span>
                <span className="muted">
                  {ref.width} × {ref.height} {FORMAT_LABELS[ref.format]}
                  {ref.galleryId ? ' · gallery' : ''}
                </span>
              </div>
              <div className="reference-actions">
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Move ${ref.name} earlier`}
                  disabled={index === 0}
                  onClick={() => move(ref.id, index - 1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Move ${ref.name} later`}
                  disabled={index === references.length - 1}
                  onClick={() => move(ref.id, index + 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Remove ${ref.name}`}
                  onClick={() => remove(ref.id)}
                  data-testid="remove-reference"
                >
                  ×
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
