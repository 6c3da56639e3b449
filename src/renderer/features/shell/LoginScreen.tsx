import { isDesktop } from '../../lib/desktop';

interface LoginScreenProps {
  onRetry: () => void;
  /** The studio was signed in and the gateway no longer knows its session. */
  expired?: boolean;
}

/** Shown when GET /api/admin/session answers 401: there is no studio session in this browser. */
export function LoginScreen({ onRetry, expired = false }: LoginScreenProps) {
  return (
    <main className="gate" data-testid="login-required" data-expired={expired}>
      <div className="gate-card">
        <span className="brand-mark large" aria-hidden="true" />
        <h1>{expired ? 'Your studio session has ended' : 'Open your login link'}</h1>
        {expired && (
          <p className="notice notice-info" role="alert" data-testid="session-expired">
            The gateway no longer accepts this browser&apos;s session: it went unused for 30 days,
            or Atelier was restarted (sessions end with it). Open a new login link to carry on.
          </p>
        )}
        <p>
          The studio controls your keys, accounts and spending, so it only opens with a login link
          from the computer running Atelier.
        </p>
        <ol>
          <li>
            Find the terminal where <code>atelier serve</code> is running.
          </li>
          <li>
            Open the link it printed, which looks like{' '}
            <code>http://127.0.0.1:PORT/login?token=…</code>
          </li>
        </ol>
        <p className="muted">
          A link works once and only for 10 minutes. If yours has expired or was used, press Enter
          in the terminal where <code>atelier serve</code> runs: it prints a new one (no restart
          needed).
          {isDesktop() && ' In the desktop app this should not happen: restart Atelier.'}
        </p>
        <button type="button" onClick={onRetry}>
          I have logged in: check again
        </button>
      </div>
    </main>
  );
}
