import type { CostEstimate, PriceTable } from '../../../shared/costEstimate';
import { ImageSlots } from '../../components/ImageSlots';
import type { ImageSlot, RunState } from '../../stores/run';
import { downloadSlot, RunProgress, slotCost } from '../generate/SendParts';
import { CompareView } from './CompareView';

/** Edit results are saved as atelier-edit-<time>-<n>.<ext>. */
export const EDIT_PREFIX = 'atelier-edit';

interface EditResultsProps {
  run: RunState;
  price: PriceTable;
  estimate: CostEstimate | null;
  partialImages: number;
  /** The finished result shown big, over its source. */
  compared: ImageSlot | undefined;
  /** The source the run started from. */
  beforeUrl: string | null;
  hidden: boolean;
  onEdit: (slot: ImageSlot) => void;
  onSelect: (index: number) => void;
  onView: (index: number) => void;
  /** Sends Edit's current work: Retry for a run taken up after a reload (RunProgress). */
  onResend: () => void;
}

/**
 * The run's progress, its results (a column of thumbnails with their actions) and the chosen
 * result at the canvas's size, wiped over its source.
 */
export function EditResults(props: EditResultsProps) {
  const { run, price, compared, beforeUrl } = props;
  const several = run.slots.length > 1;
  return (
    <section
      className={`panel results-panel ${compared?.url ? 'has-compare' : ''}`}
      aria-label="Results"
      data-testid="edit-results"
      hidden={props.hidden}
    >
      <RunProgress run={run} price={price} estimate={props.estimate} resend={props.onResend} />
      <ImageSlots
        slots={run.slots}
        phase={run.phase}
        requestedSize={run.request?.requestedSize ?? 'auto'}
        partialImages={props.partialImages}
        costOf={slotCost(price)}
        onDownload={downloadSlot(EDIT_PREFIX)}
        onEdit={props.onEdit}
        editLabel="Edit this result"
        selected={several ? (compared?.index ?? null) : null}
        onSelect={several ? props.onSelect : undefined}
        onView={(slot) => props.onView(slot.index)}
      />
      {compared?.url && beforeUrl && (
        <CompareView
          beforeUrl={beforeUrl}
          afterUrl={compared.url}
          label={`result ${compared.index + 1}`}
        />
      )}
    </section>
  );
}
