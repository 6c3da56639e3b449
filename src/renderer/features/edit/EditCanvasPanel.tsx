import type { ReferenceImage } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import { MaskEditor } from './MaskEditor';
import { MaskToolbar } from './MaskToolbar';

/** The main column's canvas: the mask tools over the first image, or where to drop one. */
export function EditCanvasPanel({
  source,
  hidden,
}: {
  source: ReferenceImage | null;
  hidden: boolean;
}) {
  const maskSourceId = useMaskStore((s) => s.sourceId);
  return (
    <section className="panel canvas-panel" aria-label="Mask" hidden={hidden}>
      {source ? (
        <>
          <MaskToolbar />
          {maskSourceId === source.id ? (
            <MaskEditor source={source} />
          ) : (
            <div className="mask-viewport" />
          )}
        </>
      ) : (
        <div className="drop-target" data-testid="drop-target">
          <p>
            <strong>Drop an image here</strong>, paste one, or use <em>Add files</em> or{' '}
            <em>From gallery</em>.
          </p>
          <p className="muted">PNG, JPEG or WebP under 50 MB. Then paint the area to change.</p>
        </div>
      )}
    </section>
  );
}
