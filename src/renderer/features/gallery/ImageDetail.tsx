import type { ImageDetail as ImageDetailData, ImageRecord } from '../../../shared/admin';
import { CopyButton } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { admin } from '../../lib/api/admin';
import { adminUrls } from '../../lib/api/urls';
import { formatUsd } from '../../lib/format';
import { useResource } from '../../lib/hooks';
import { chainStepVerb, imageFacts } from './imageFacts';

interface ImageDetailProps {
  image: ImageRecord;
  keyName: (id: string | null) => string | null;
  busy: string | null;
  inCompare: boolean;
  onSelect: (image: ImageRecord) => void;
  /** Opens the full-window viewer on this image. */
  onView: () => void;
  /** Opens the viewer over the edit chain, at `index` (root first). */
  onViewChain: (steps: ImageRecord[], index: number) => void;
  onFavourite: () => void;
  onReuse: () => void;
  onEdit: () => void;
  onDownload: () => void;
  onCompare: () => void;
  onDelete: () => void;
  onClose: () => void;
}

/** Everything about one image, what it can be used for, and the edits that led to it. */
export function ImageDetail(props: ImageDetailProps) {
  const { image } = props;
  const detail = useResource((signal) => admin.image(image.id, signal), image.id);
  // The record comes from the page (which applies favourites at once); the detail adds the chain.
  const current = image;
  const chain = detail.data?.image.id === image.id ? detail.data.chain : [];
  const lineage = detail.data?.image.id === image.id ? detail.data.lineage : null;
  const facts = imageFacts(current, props.keyName);

  return (
    <aside
      className="gallery-detail panel"
      aria-label="Image details"
      data-testid="image-detail"
      data-image-id={current.id}
      data-ready={detail.loaded ? 'true' : 'false'}
    >
      <header className="detail-header">
        <h2>Image</h2>
        <button
          type="button"
          className="icon-button"
          aria-label="Close the details"
          onClick={props.onClose}
        >
          ×
        </button>
      </header>
      <button
        type="button"
        className="detail-preview"
        onClick={props.onView}
        aria-label="View full window"
        title="View full window"
        data-testid="detail-view"
      >
        <img
          src={adminUrls.file(current.id)}
          alt={current.prompt || 'The selected image'}
          width={current.width}
          height={current.height}
          data-testid="detail-image"
        />
      </button>
      <div
        className="detail-actions"
        role="group"
        aria-label="Image actions"
        data-testid="detail-actions"
      >
        <button
          type="button"
          aria-pressed={current.favourite}
          onClick={props.onFavourite}
          disabled={props.busy === 'favourite'}
          data-testid="detail-favourite"
        >
          {current.favourite ? '★ Favourite' : '☆ Favourite'}
        </button>
        <button type="button" onClick={props.onReuse} data-testid="detail-reuse">
          Re-use parameters
        </button>
        <button
          type="button"
          onClick={props.onEdit}
          disabled={props.busy === 'edit'}
          data-testid="detail-edit"
        >
          {props.busy === 'edit' ? 'Opening…' : 'Edit this'}
        </button>
        <button
          type="button"
          onClick={props.onDownload}
          disabled={props.busy === 'download'}
          data-testid="detail-download"
        >
          Download
        </button>
        <button
          type="button"
          aria-pressed={props.inCompare}
          onClick={props.onCompare}
          data-testid="detail-compare"
        >
          {props.inCompare ? 'In comparison' : 'Compare'}
        </button>
        <button
          type="button"
          className="danger"
          onClick={props.onDelete}
          data-testid="detail-delete"
        >
          Delete
        </button>
      </div>

      {/* The image and its actions stay put; the prompt, facts and chain scroll under them. */}
      <div className="detail-body" data-testid="detail-body">
        <section aria-labelledby="detail-prompt">
          <h3 id="detail-prompt">Prompt</h3>
          <p className="detail-prompt" data-testid="detail-prompt-text">
            {current.prompt || <span className="muted">No prompt</span>}
          </p>
          {current.revisedPrompt && current.revisedPrompt !== current.prompt && (
            <p className="detail-revised">
              <span className="muted">Revised by the model: </span>
              {current.revisedPrompt}
            </p>
          )}
        </section>

        <dl className="detail-facts" data-testid="detail-facts">
          {facts.map((fact) => (
            <div key={fact.id} data-fact={fact.id}>
              <dt>{fact.label}</dt>
              <dd className={fact.id === 'request' ? 'mono' : undefined}>
                {fact.value}
                {fact.flag && (
                  <span className="fact-flag" role="note">
                    {' '}
                    ({fact.flag})
                  </span>
                )}
                {fact.id === 'request' && (
                  <CopyButton text={fact.value} label="Copy the request id" />
                )}
              </dd>
            </div>
          ))}
        </dl>

        {detail.error && <ErrorNotice error={detail.error} onRetry={detail.reload} />}
        {(chain.length > 0 || current.parentId || current.hasMask) && (
          <EditChain
            image={current}
            chain={chain}
            lineage={lineage}
            onSelect={props.onSelect}
            onView={props.onViewChain}
          />
        )}
      </div>
    </aside>
  );
}

/** Root first: each step's image, and for the edits the prompt and mask that made the next. */
function EditChain({
  image,
  chain,
  lineage,
  onSelect,
  onView,
}: {
  image: ImageRecord;
  chain: ImageRecord[];
  lineage: ImageDetailData['lineage'] | null;
  onSelect: (image: ImageRecord) => void;
  onView: (steps: ImageRecord[], index: number) => void;
}) {
  const steps = [...chain].reverse().concat(image);
  return (
    <section aria-labelledby="detail-chain" data-testid="detail-chain">
      <div className="chain-heading">
        <h3 id="detail-chain">Edit chain</h3>
        {lineage && lineage.images > 1 && (
          // What the lineage cost (issue 22): the generation and every edit made from it.
          <span
            className="muted"
            data-fact="lineage-cost"
            title="The first generation and every edit made from it, branches too"
          >
            {formatUsd(lineage.costMicros)} for {lineage.images} images
          </span>
        )}
        {steps.length > 1 && (
          <button
            type="button"
            className="link-button"
            onClick={() => onView(steps, steps.length - 1)}
            data-testid="chain-view"
          >
            View the steps full window
          </button>
        )}
      </div>
      {image.parentId && chain.length === 0 && (
        <p className="muted">The image it was edited from has been deleted.</p>
      )}
      <ol className="chain-steps">
        {steps.map((step, i) => (
          <li key={step.id} data-testid="chain-step" data-image-id={step.id}>
            <p className="chain-edit" data-testid="chain-prompt">
              <span className="muted">{chainStepVerb(step, i)}: </span>
              {step.prompt}
            </p>
            <div className="chain-images">
              <button
                type="button"
                className="chain-thumb"
                onClick={() => onSelect(step)}
                aria-current={step.id === image.id ? 'true' : undefined}
                aria-label={`${step.id === image.id ? 'This image' : 'Open this step'}: ${step.prompt}`}
              >
                <img src={adminUrls.thumb(step.id)} alt="" />
              </button>
              {step.hasMask && (
                <figure className="chain-mask">
                  <img
                    src={adminUrls.mask(step.id)}
                    alt={`The mask used for step ${i + 1}`}
                    data-testid="chain-mask"
                  />
                  <figcaption className="muted">Mask</figcaption>
                </figure>
              )}
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
