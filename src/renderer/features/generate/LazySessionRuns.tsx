import { lazy, Suspense } from 'react';
import { useSessionRuns } from '../../stores/sessionRuns';

const SessionRuns = lazy(() => import('./SessionRuns').then((m) => ({ default: m.SessionRuns })));

/** The session's runs load with the first one (their own chunk), not with the studio. */
export function LazySessionRuns() {
  const any = useSessionRuns((s) => s.runs.length > 0);
  if (!any) return null;
  return (
    <Suspense fallback={null}>
      <SessionRuns />
    </Suspense>
  );
}
