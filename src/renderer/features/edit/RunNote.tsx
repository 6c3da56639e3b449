import type { RunPhase } from '../../stores/run';

/** Beside the button the person just pressed: what the edit is doing and where its result is. */
export function RunNote(props: {
  phase: RunPhase;
  received: number;
  n: number;
  showing: boolean;
  onShow: () => void;
}) {
  const { phase, received, n } = props;
  if (phase === 'idle') return null;
  const text =
    phase === 'running'
      ? `Editing: ${received} of ${n} image${n === 1 ? '' : 's'} so far.`
      : phase === 'done'
        ? `Done: ${n === 1 ? 'the result is' : `${n} results are`} ready.`
        : phase === 'cancelled'
          ? 'Cancelled.'
          : 'The edit failed: the reason is with the result.';
  return (
    <p
      className={`run-note run-note-${phase}`}
      role="status"
      data-testid="edit-run-note"
      data-phase={phase}
    >
      {text}{' '}
      {!props.showing && (
        <button
          type="button"
          className="link-button"
          onClick={props.onShow}
          data-testid="edit-show-result"
        >
          Show
        </button>
      )}
    </p>
  );
}
