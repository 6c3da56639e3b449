import { useEffect } from 'react';
import { subscribeAdminEvents } from '../../lib/api/adminEvents';
import { useBudgetStore } from '../../stores/budget';
import './budget.css';

/**
 * Keeps the studio budget current and says when a budget passes 50, 80 or 100 %: the Studio
 * key's spend is read again after each of its requests (the live event stream says when), a
 * gateway `budget` event announces any key's threshold, and each notice is shown once per
 * period (the store remembers which were shown, across restarts).
 */
export function BudgetNotices() {
  const notices = useBudgetStore((s) => s.notices);
  const dismiss = useBudgetStore((s) => s.dismiss);

  useEffect(() => {
    const store = useBudgetStore.getState();
    void store.refresh();
    return subscribeAdminEvents({
      onUsage: (record) => {
        const state = useBudgetStore.getState();
        if (state.studioKey === null || record.apiKeyId === state.studioKey.id)
          void state.refresh();
      },
      onBudget: (alert) => useBudgetStore.getState().alert(alert),
    });
  }, []);

  if (notices.length === 0) return null;
  return (
    <div className="budget-notice-stack" aria-live="polite">
      {notices.map((notice) => (
        <div
          key={notice.id}
          className={`budget-notice budget-notice-${notice.percent}`}
          role="status"
          data-testid="budget-notice"
          data-scope={notice.scope}
          data-percent={notice.percent}
        >
          <span>{notice.text}</span>
          <button
            type="button"
            className="icon-button"
            aria-label="Dismiss"
            onClick={() => dismiss(notice.id)}
            data-testid="budget-notice-dismiss"
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
