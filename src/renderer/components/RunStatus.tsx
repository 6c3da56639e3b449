import { formatUsd } from '../../shared/costEstimate';
import type { TokenUsage } from '../../shared/imageParams';
import type { RunPhase } from '../stores/run';
import { ElapsedTime } from './ElapsedTime';

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
  onCancel: () => void;
  onRetry: () => void;
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
  return (
    <div className={`run-status run-${phase}`} data-testid="run-status" data-phase={phase}>
      <div className="run-line" aria-live="polite">
        <span className="run-phase">
          {phase === 'running' && <span className="spinner" aria-hidden="true" />}
          {PHASE_TEXT[phase]}
        </span>
        <ElapsedTime startedAt={startedAt} finishedAt={finishedAt} />
        <span className="muted">
          {received} of {n} image{n === 1 ? '' : 's'}
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
        {(phase === 'cancelled' || phase === 'done') && (
          <button type="button" onClick={props.onRetry} data-testid="retry">
            {phase === 'done' ? 'Run again' : 'Retry'}
          </button>
        )}
      </div>
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
          {estimateMicros !== null && (
            <span className="muted"> · estimated {formatUsd(estimateMicros)}</span>
          )}
          {props.requestId && <span className="muted"> · request {props.requestId}</span>}
        </p>
      )}
    </div>
  );
}
