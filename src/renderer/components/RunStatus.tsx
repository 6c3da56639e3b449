import { formatUsd } from '../../shared/costEstimate';
import type { TokenUsage } from '../../shared/imageParams';
import type { RunPhase } from '../stores/run';
import { useNow } from '../lib/hooks';
import { costPerKeptImage } from '../features/budget/studioBudget';
import { ElapsedTime, formatElapsed } from './ElapsedTime';
import { RequestIdChip } from './RequestIdChip';
import './results.css';

interface RunStatusProps {
  phase: RunPhase;
  startedAt: number | null;
  finishedAt: number | null;
  n: number;
  received: number;
  usage: TokenUsage | null;
  costMicros: number | null;
  estimateMicros: number | null;
  requestId: string | null;
  /** After Cancel: whether the gateway stopped the upstream work (null while unknown). */
  upstreamStopped?: boolean | null;
  /** The usual time of a run of this size and quality (median of earlier ones), if known. */
  expected?: { ms: number; basis: number } | null;
  /** Partial previews received so far, of those asked for (0 when not streaming). */
  previews?: number;
  previewsAsked?: number;
  onCancel: () => void;
  /** Absent when the run cannot be sent again from here: no Retry is offered. */
  onRetry?: (() => void) | undefined;
  /** Why Retry / Run again may not send now (the session budget), shown on the disabled button. */
  retryBlockedBy?: string | null;
}

const PHASE_TEXT: Record<RunPhase, string> = {
  idle: 'Ready',
  running: 'Working',
  done: 'Done',
  error: 'Failed',
  cancelled: 'Cancelled',
};

/** Elapsed time, progress, cancel and retry, then the real tokens and cost beside the estimate. */
export function RunStatus(props: RunStatusProps) {
  const { phase, startedAt, finishedAt, n, received, usage, costMicros, estimateMicros } = props;
  if (phase === 'idle' || startedAt === null) return null;
  const perImage = costMicros === null ? null : costPerKeptImage(costMicros, received);
  return (
    <div className={`run-status run-${phase}`} data-testid="run-status" data-phase={phase}>
      <div className="run-line" aria-live="polite">
        <span className="run-phase">
          {phase === 'running' && <span className="spinner" aria-hidden="true" />}
          <span>{PHASE_TEXT[phase]}</span>
        </span>
        <ElapsedTime startedAt={startedAt} finishedAt={finishedAt} />
        <span className="muted">
          {received} of {n} image{n === 1 ? '' : 's'}
          {phase === 'running' && props.previewsAsked ? (
            <span data-testid="previews">
              {' '}
              · {props.previews ?? 0} of {props.previewsAsked} previews
            </span>
          ) : null}
        </span>
        {phase === 'running' && (
          <button
            type="button"
            className="danger"
            onClick={props.onCancel}
            aria-keyshortcuts="Escape"
            title="Esc"
            data-testid="cancel"
          >
            Cancel
          </button>
        )}
        {(phase === 'cancelled' || phase === 'done') && props.onRetry && (
          <button
            type="button"
            onClick={props.onRetry}
            disabled={Boolean(props.retryBlockedBy)}
            title={props.retryBlockedBy ?? undefined}
            data-testid="retry"
          >
            {phase === 'done' ? 'Run again' : 'Retry'}
          </button>
        )}
      </div>
      {(phase === 'running' || phase === 'done') && (
        <ExpectedTime
          expected={props.expected ?? null}
          startedAt={startedAt}
          finishedAt={finishedAt}
        />
      )}
      {phase === 'cancelled' && (
        <p
          className="muted run-cancel-note"
          data-testid="cancel-outcome"
          data-stopped={props.upstreamStopped ?? ''}
        >
          {props.upstreamStopped === true &&
            'The upstream request was stopped: this image is not made or kept.'}
          {props.upstreamStopped === false &&
            'The gateway had already finished it: the image is billed and kept in the Gallery.'}
          {props.upstreamStopped == null && 'Stopping the upstream request…'}
        </p>
      )}
      {usage && (
        <p className="run-cost" data-testid="actual-cost" data-cost-micros={costMicros ?? ''}>
          <strong>{costMicros !== null ? formatUsd(costMicros) : '—'}</strong> for{' '}
          {usage.total_tokens.toLocaleString('en-US')} tokens (
          {usage.input_tokens.toLocaleString('en-US')} in,{' '}
          {usage.output_tokens.toLocaleString('en-US')} out)
          {perImage !== null && (
            <span className="per-image" data-testid="cost-per-image" data-cost-micros={perImage}>
              {' '}
              · {formatUsd(perImage)} per kept image
            </span>
          )}
          {estimateMicros !== null && (
            <span className="muted"> · estimated {formatUsd(estimateMicros)}</span>
          )}
        </p>
      )}
      {props.requestId && phase !== 'running' && <RequestIdChip requestId={props.requestId} />}
    </div>
  );
}

/**
 * Elapsed time against the usual time for this size and quality: a bar while it runs ("12 s of
 * about 20 s"), then how this run compared. Without an earlier run to go by it says so.
 */
function ExpectedTime(props: {
  expected: { ms: number; basis: number } | null;
  startedAt: number;
  finishedAt: number | null;
}) {
  const { expected, startedAt, finishedAt } = props;
  const now = useNow(250, finishedAt === null);
  const elapsed = (finishedAt ?? Math.max(now, startedAt)) - startedAt;
  if (!expected) {
    if (finishedAt !== null) return null;
    return (
      <p className="run-expected muted" data-testid="expected-time" data-expected-ms="">
        No earlier run of this size and quality to time it against yet.
      </p>
    );
  }
  const share = Math.min(1, elapsed / Math.max(1, expected.ms));
  const basis = `the median of ${expected.basis} earlier run${expected.basis === 1 ? '' : 's'} of this size and quality`;
  if (finishedAt !== null) {
    return (
      <p
        className="run-expected muted"
        data-testid="expected-time"
        data-expected-ms={expected.ms}
        title={basis}
      >
        Took {formatElapsed(elapsed)}; usually about {formatElapsed(expected.ms)}.
      </p>
    );
  }
  const over = elapsed > expected.ms * 1.25;
  return (
    <div
      className="run-expected"
      data-testid="expected-time"
      data-expected-ms={expected.ms}
      title={basis}
    >
      <div
        className={`run-bar ${over ? 'is-over' : ''}`}
        role="progressbar"
        aria-label="Time against the usual"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(share * 100)}
      >
        <span style={{ width: `${share * 100}%` }} />
      </div>
      <span className="muted">
        {formatElapsed(elapsed)} of about {formatElapsed(expected.ms)}
        {over ? ': longer than usual' : ''}
      </span>
    </div>
  );
}
