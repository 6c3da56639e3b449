import { isDesktop } from '../../lib/desktop';

interface LoginScreenProps {
  onRetry: () => void;
}

/** Shown when GET /api/admin/session answers 401: there is no studio session in this browser. */
export function LoginScreen({ onRetry }: LoginScreenProps) {
  return (
    <main className="gate" data-testid="login-required">
      <div className="gate-card">
        <span className="brand-mark large" aria-hidden="true" />
        <h1>Open your login link</h1>
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
          A link works once and only for 10 minutes. If yours has expired or was used, restart{' '}
          <code>atelier serve</code> to print a new one.
          {isDesktop() && ' In the desktop app this should not happen: restart Atelier.'}
        </p>
        <button type="button" onClick={onRetry}>
          I have logged in: check again
        </button>
      </div>
    </main>
  );
}
