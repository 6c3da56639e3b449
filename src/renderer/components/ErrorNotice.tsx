import type { GatewayErrorInfo } from '../lib/gateway';

interface ErrorNoticeProps {
  error: GatewayErrorInfo;
  onRetry?: (() => void) | undefined;
  testId?: string;
}

/** What the person can do about an error, by its status and code (spec 7). */
export function errorAdvice(error: GatewayErrorInfo): string | null {
  if (error.code === 'studio_session_required' || error.code === 'INVALID_API_KEY') {
    return 'The studio session has ended: open a fresh login link printed by `atelier serve`.';
  }
  if (error.status === 429) {
    return 'The upstream account is out of requests for now: wait for the reset, or add another account.';
  }
  if (error.code === 'moderation_blocked' || error.code === 'content_policy_violation') {
    return 'The prompt was refused by the content policy: change it before trying again.';
  }
  if (error.status === 400) return 'Change the parameter named above, then send again.';
  if (error.status >= 500 || error.code?.startsWith('upstream_')) {
    return 'Retrying may help; otherwise simplify the prompt or lower the quality or size.';
  }
  if (error.status === 0 && !error.code) return 'Check that Atelier is still running, then retry.';
  return null;
}

function heading(error: GatewayErrorInfo): string {
  if (error.status === 0)
    return error.code ? 'The request failed while streaming' : 'The request did not complete';
  if (error.status === 400) return 'The request was refused (400)';
  if (error.status === 401) return 'Not signed in (401)';
  return `The request failed (${error.status})`;
}

export function ErrorNotice({ error, onRetry, testId = 'run-error' }: ErrorNoticeProps) {
  const advice = errorAdvice(error);
  return (
    <div
      className="notice notice-error"
      role="alert"
      data-testid={testId}
      data-param={error.param ?? undefined}
      data-code={error.code ?? undefined}
    >
      <p className="notice-title">{heading(error)}</p>
      <p className="notice-message">{error.message}</p>
      <dl className="notice-facts">
        {error.param && (
          <>
            <dt>Parameter</dt>
            <dd>
              <code data-testid="error-param">{error.param}</code>
            </dd>
          </>
        )}
        {error.code && (
          <>
            <dt>Code</dt>
            <dd>
              <code>{error.code}</code>
            </dd>
          </>
        )}
        {error.requestId && (
          <>
            <dt>Request</dt>
            <dd>
              <code>{error.requestId}</code>
            </dd>
          </>
        )}
      </dl>
      {advice && <p className="notice-advice">{advice}</p>}
      {onRetry && (
        <button type="button" onClick={onRetry} data-testid="retry">
          Retry
        </button>
      )}
    </div>
  );
}
