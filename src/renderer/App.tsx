import { useEffect } from 'react';
import { AppShell } from './features/shell/AppShell';
import { LoginScreen } from './features/shell/LoginScreen';
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

  useEffect(() => {
    void loadStatus();
    void checkSession();
  }, [loadStatus, checkSession]);

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
        <LoginScreen onRetry={retry} />
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
