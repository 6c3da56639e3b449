import type { ReferenceImage } from '../../stores/edit';
import type { ImageParams, ParamCheck } from '../generate/params';
import { ParamsPanel } from '../generate/ParamsPanel';
import { OutpaintPanel, type OutpaintPlan } from './outpaint/OutpaintPanel';

/** The folded parts of the request: expanding the canvas (outpaint) and the parameters. */
export function EditOptions(props: {
  source: ReferenceImage | null;
  busy: boolean;
  onExpand: (plan: OutpaintPlan) => void;
  params: ImageParams;
  check: ParamCheck;
  onParams: (patch: Partial<ImageParams>) => void;
  serverError: { param: string | null; message: string } | null;
}) {
  const { source } = props;
  return (
    <>
      {source && (
        <details className="edit-outpaint" data-testid="outpaint-open">
          <summary>Expand the canvas (outpaint)</summary>
          <OutpaintPanel
            key={source.id}
            original={source}
            busy={props.busy}
            onExpand={props.onExpand}
          />
        </details>
      )}
      <details className="edit-params">
        <summary>Parameters</summary>
        <ParamsPanel
          params={props.params}
          check={props.check}
          onChange={props.onParams}
          serverError={props.serverError}
          autoHint="Auto keeps the first image's size."
        />
      </details>
    </>
  );
}
