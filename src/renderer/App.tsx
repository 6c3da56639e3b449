import { useEffect } from 'react';
import { HomePage } from './features/home/HomePage';
import { useStatusStore } from './stores/status';

export function App() {
  const phase = useStatusStore((s) => s.phase);
  const status = useStatusStore((s) => s.status);
  const error = useStatusStore((s) => s.error);
  const load = useStatusStore((s) => s.load);

  useEffect(() => {
    void load();
  }, [load]);

  // `data-ready` is the signal end-to-end tests wait on instead of sleeping.
  return (
    <div className="app" data-ready={phase === 'ready' ? 'true' : 'false'} data-phase={phase}>
      {status ? (
        <HomePage status={status} />
      ) : phase === 'error' ? (
        <div className="panel notice" role="alert">
          <h1>Atelier cannot reach its gateway</h1>
          <p>{error}</p>
          <button type="button" onClick={() => void load()}>
            Try again
          </button>
        </div>
      ) : (
        <p className="loading" role="status">
          Connecting to the gateway…
        </p>
      )}
    </div>
  );
}
