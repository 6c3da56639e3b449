import type { ReferenceImage } from '../../stores/edit';
import { useEditStore } from '../../stores/edit';
import { ChainTrail } from './ChainTrail';
import { LayerPanel } from './LayerPanel';
import { ReferenceList } from './ReferenceList';

/** The top of the request: the images, what went wrong taking one in, the chain and its layers. */
export function EditSources(props: {
  source: ReferenceImage | null;
  notice: string | null;
  onAddFiles: (files: File[]) => void;
  onOpenGallery: () => void;
}) {
  const chained = useEditStore((s) => s.chain.length > 0);
  return (
    <>
      <ReferenceList onAddFiles={props.onAddFiles} onOpenGallery={props.onOpenGallery} />
      {props.notice && (
        <p className="notice notice-error" role="alert" data-testid="edit-notice">
          {props.notice}
        </p>
      )}
      {chained && <ChainTrail />}
      {props.source && <LayerPanel source={props.source} />}
    </>
  );
}
