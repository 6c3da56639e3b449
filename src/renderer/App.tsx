import { useEffect } from 'react';
import { AppShell } from './features/shell/AppShell';
import { LoginScreen } from './features/shell/LoginScreen';
import { watchSession } from './lib/api/session';
import { resumeLiveRuns } from './stores/run';
import { useSessionStore } from './stores/session';
import { useStatusStore } from './stores/status';

/**
 * Loads the gateway status (public) and probes the studio session. Without a session the studio
 * shows how to log in; with one, the app shell.
 */
export function App() {
  const statusPhase = useStatusStore((s) => s.phase);
  const status = useStatusStore((s) => s.status);
  const statusError = useStatusStore((s) => s.error);
  const loadStatus = useStatusStore((s) => s.load);
  const session = useSessionStore((s) => s.phase);
  const sessionError = useSessionStore((s) => s.error);
  const checkSession = useSessionStore((s) => s.check);
  const verifySession = useSessionStore((s) => s.verify);
  const expired = useSessionStore((s) => s.expired);

  useEffect(() => {
    void loadStatus();
    void checkSession();
  }, [loadStatus, checkSession]);
  // A session that ends under a running studio (idle too long, the gateway restarted) shows the
  // login screen instead of pages full of 401s.
  useEffect(() => watchSession(() => void verifySession()), [verifySession]);
  // The studio's runs outlive the page: a run still going when it was closed or reloaded is
  // taken up again once the session is known.
  useEffect(() => {
    if (session === 'ok') void resumeLiveRuns();
  }, [session]);

  const settled = (statusPhase === 'ready' || statusPhase === 'error') && session !== 'checking';
  const retry = () => {
    void loadStatus();
    void checkSession();
  };

  // `data-ready` is the signal end-to-end tests wait on instead of sleeping; each page root
  // carries its own once its data has loaded.
  return (
    <div className="app" data-ready={settled ? 'true' : 'false'} data-session={session}>
      {session === 'ok' ? (
        <AppShell status={status} />
      ) : session === 'login' ? (
        <LoginScreen onRetry={retry} expired={expired} />
      ) : session === 'error' ? (
        <main className="gate" data-testid="gateway-error">
          <div className="gate-card" role="alert">
            <h1>Atelier cannot reach its gateway</h1>
            <p>{statusPhase === 'error' ? statusError : sessionError}</p>
            <button type="button" onClick={retry}>
              Try again
            </button>
          </div>
        </main>
      ) : (
        <p className="loading" role="status">
          Connecting to the gateway…
        </p>
      )}
    </div>
  );
}
