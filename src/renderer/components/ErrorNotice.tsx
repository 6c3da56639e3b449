import { errorView } from '../lib/errorView';
import type { GatewayErrorInfo } from '../lib/api/errors';
import { useNow } from '../lib/hooks';
import { useRouteStore } from '../stores/route';

interface ErrorNoticeProps {
  error: GatewayErrorInfo;
  onRetry?: (() => void) | undefined;
  testId?: string;
}

/**
 * One error in plain words (lib/errorView.ts): what happened, the gateway's message with local
 * times, one piece of advice, and Retry only where it can help (a usage limit's Retry appears
 * once its window has reset), and a button to the page that helps (Settings for the studio
 * budget, Keys for a key's limits). The code and request id stay for a bug report, small.
 */
export function ErrorNotice({ error, onRetry, testId = 'run-error' }: ErrorNoticeProps) {
  // The clock matters only while a reset is ahead ("in 12 min", Retry coming back).
  const now = useNow(15_000);
  const view = errorView(error, now);
  const navigate = useRouteStore((s) => s.navigate);
  const canRetry = view.retry === 'now' || (view.retryAt !== null && now >= view.retryAt);
  return (
    <div
      className="notice notice-error"
      role="alert"
      data-testid={testId}
      data-param={error.param ?? undefined}
      data-code={error.code ?? undefined}
      data-kind={view.kind}
      data-retry={canRetry ? 'now' : view.retry}
    >
      <p className="notice-title" data-testid="error-title">
        {view.title}
      </p>
      {view.message && <p className="notice-message">{view.message}</p>}
      {error.param && (
        <p className="notice-param">
          Parameter <code data-testid="error-param">{error.param}</code>
        </p>
      )}
      {view.advice && (
        <p className="notice-advice" data-testid="error-advice">
          {view.advice}
        </p>
      )}
      {(error.code || error.requestId) && (
        <p className="notice-ids muted">
          {error.code && <code>{error.code}</code>}
          {error.code && error.requestId && ' · '}
          {error.requestId && <code>{error.requestId}</code>}
        </p>
      )}
      {((onRetry && canRetry) || view.action) && (
        <p className="notice-buttons">
          {view.action && (
            <button
              type="button"
              className="primary"
              onClick={() => navigate(view.action!.path)}
              data-testid="error-action"
              data-path={view.action.path}
            >
              {view.action.label}
            </button>
          )}
          {onRetry && canRetry && (
            <button type="button" onClick={onRetry} data-testid="retry">
              Retry
            </button>
          )}
        </p>
      )}
    </div>
  );
}
