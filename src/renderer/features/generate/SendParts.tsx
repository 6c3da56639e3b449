import type { ReactNode } from 'react';
import {
  formatUsd,
  usageCostMicros,
  type CostEstimate as Estimate,
  type PriceTable,
} from '../../../shared/costEstimate';
import { CostEstimate } from '../../components/CostEstimate';
import { ErrorNotice } from '../../components/ErrorNotice';
import { RunStatus } from '../../components/RunStatus';
import { imageFileName, saveBlob } from '../../lib/files';
import { formatCombo, isMacPlatform } from '../../lib/shortcuts';
import { useBudgetStore } from '../../stores/budget';
import type { ImageSlot, RunState } from '../../stores/run';
import { sessionBudgetBlocker } from '../budget/studioBudget';
import { useExpectedTime } from './expectedTime';
import './compose.css';

/** Partial images asked per image (streams only). */
function partialsOf(run: RunState): number {
  const body = run.request?.call.body;
  if (!body) return 0;
  const get = (name: string) => (body instanceof FormData ? body.get(name) : body[name]);
  const stream = get('stream');
  if (stream !== true && stream !== 'true') return 0;
  return Number(get('partial_images') ?? 0) || 0;
}

interface SendBarProps {
  estimate: Estimate | null;
  priceSource: string;
  n: number;
  label: string;
  disabled: boolean;
  submitTestId: string;
  /** The id of the line that says why the request cannot be sent yet. */
  blockersId: string;
  /** Why it cannot be sent (empty until the person has tried). */
  blockers: readonly string[];
  /** A line under the button about the run it started (Edit: progress, done, where to look). */
  note?: ReactNode;
}

/** The cost estimate, the submit button with its shortcut, and what stops the request. */
export function SendBar(props: SendBarProps) {
  const { blockers, blockersId } = props;
  return (
    <div className="send-bar">
      <CostEstimate estimate={props.estimate} priceSource={props.priceSource} n={props.n} />
      <div className="send-row">
        <button
          type="submit"
          className="primary"
          disabled={props.disabled}
          aria-describedby={blockersId}
          data-testid={props.submitTestId}
        >
          {props.label}
        </button>
        <kbd className="muted">{formatCombo('mod+enter', isMacPlatform())}</kbd>
      </div>
      <p id={blockersId} className="blockers" aria-live="polite">
        {blockers.length > 0 ? `Cannot send yet: ${blockers.join('; ')}` : ''}
      </p>
      {props.note}
    </div>
  );
}

interface RunProgressProps {
  run: RunState;
  price: PriceTable;
  estimate: Estimate | null;
  /**
   * What Retry does for a run this page cannot send again as it was: one taken up after a reload
   * has no request body in hand (Edit's images and mask are not in the run's record), so the page
   * sends its current work instead. Without it, such a run offers no Retry.
   */
  resend?: () => void;
}

/** A run's status line (elapsed, progress, cancel, retry, real cost) and its error. */
export function RunProgress({ run, price, estimate, resend }: RunProgressProps) {
  // A retry sends the request again: it counts against the session budget like a first send.
  const estimateMicros = estimate?.costMicros ?? 0;
  const blocker = useBudgetStore((s) =>
    sessionBudgetBlocker(s.budget, estimateMicros, s.heldMicros),
  );
  const hold = useBudgetStore((s) => s.hold);
  const retry = () => {
    if (blocker) return;
    const release = hold(estimateMicros);
    void run.retry().finally(release);
  };
  const onRetry = run.request ? retry : resend;
  const expected = useExpectedTime(run);
  const partialsAsked = partialsOf(run);
  return (
    <>
      <RunStatus
        phase={run.phase}
        startedAt={run.startedAt}
        finishedAt={run.finishedAt}
        n={run.slots.length}
        received={run.slots.filter((s) => s.state === 'done').length}
        usage={run.usage}
        costMicros={run.usage ? usageCostMicros(run.usage, price) : null}
        estimateMicros={estimate?.costMicros ?? null}
        requestId={run.requestId}
        upstreamStopped={run.upstreamStopped}
        expected={expected}
        previews={run.slots.reduce(
          (n, s) => n + (s.state === 'done' ? partialsAsked : s.partials),
          0,
        )}
        previewsAsked={partialsAsked * run.slots.length}
        onCancel={run.cancel}
        onRetry={onRetry}
        retryBlockedBy={blocker}
      />
      {run.error && <ErrorNotice error={run.error} onRetry={blocker ? undefined : onRetry} />}
    </>
  );
}

/** An image's own cost, from its tokens. */
export const slotCost = (price: PriceTable) => (slot: ImageSlot) =>
  slot.usage ? formatUsd(usageCostMicros(slot.usage, price)) : null;

/** The file name a result is saved or handed on under. */
export const slotFileName = (blob: Blob, slot: ImageSlot, prefix?: string) =>
  imageFileName(blob, new Date(), slot.index, prefix);

/** Saves a finished result where the person chooses. */
export const downloadSlot = (prefix?: string) => (slot: ImageSlot) => {
  if (slot.blob) void saveBlob(slot.blob, slotFileName(slot.blob, slot, prefix));
};
