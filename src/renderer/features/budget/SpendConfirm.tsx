import { useRef, useState } from 'react';
import { Dialog } from '../../components/Dialog';
import { useBudgetStore } from '../../stores/budget';
import {
  confirmationQuestion,
  needsConfirmation,
  sessionBudgetBlocker,
  type SpendSummary,
} from './studioBudget';

/**
 * What Generate and Edit ask of the studio budget before sending: `blocker` says why a request
 * may not go under the session budget (counting the requests still running), `confirm` asks the
 * person when its estimate is above their threshold (resolving true to send), `hold` counts a
 * sent request until it ends, and `dialog` is the question, to be rendered.
 */
export function useSpendGuard(estimateMicros: number | null) {
  const prefs = useBudgetStore((s) => s.prefs);
  const budget = useBudgetStore((s) => s.budget);
  const heldMicros = useBudgetStore((s) => s.heldMicros);
  const hold = useBudgetStore((s) => s.hold);
  const [asking, setAsking] = useState<SpendSummary | null>(null);
  const answer = useRef<((send: boolean) => void) | null>(null);

  const confirm = (summary: SpendSummary): Promise<boolean> => {
    if (!needsConfirmation(summary.estimateMicros, prefs)) return Promise.resolve(true);
    // A second send while the question is open is not a second request.
    if (answer.current) return Promise.resolve(false);
    setAsking(summary);
    return new Promise((resolve) => {
      answer.current = resolve;
    });
  };
  const reply = (send: boolean) => {
    answer.current?.(send);
    answer.current = null;
    setAsking(null);
  };

  return {
    blocker:
      estimateMicros === null ? null : sessionBudgetBlocker(budget, estimateMicros, heldMicros),
    confirm,
    /** Counts a request's estimate against the session budget until the returned call ends it. */
    hold,
    dialog: (
      <Dialog
        open={asking !== null}
        onClose={() => reply(false)}
        title="Above your confirmation threshold"
        testId="spend-confirm"
      >
        {asking && (
          <>
            <p className="confirm-body" data-testid="spend-confirm-question">
              {confirmationQuestion(asking)}
            </p>
            <div className="dialog-actions">
              <button type="button" onClick={() => reply(false)} data-testid="spend-cancel">
                Cancel
              </button>
              <button
                type="button"
                className="primary"
                onClick={() => reply(true)}
                data-testid="spend-send"
              >
                Send
              </button>
            </div>
          </>
        )}
      </Dialog>
    ),
  };
}
