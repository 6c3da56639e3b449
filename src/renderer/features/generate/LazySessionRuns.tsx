import { lazy, Suspense, useEffect } from 'react';
import { subscribeAdminEvents } from '../../lib/api/adminEvents';
import { useSessionRuns } from '../../stores/sessionRuns';

const GENERATIONS = '/images/generations';

const SessionRuns = lazy(() => import('./SessionRuns').then((m) => ({ default: m.SessionRuns })));

/**
 * Generate's runs, read from the gateway when the page opens; the list and its viewer load as
 * their own chunk once there is a run to show.
 */
export function LazySessionRuns() {
  const load = useSessionRuns((s) => s.load);
  const any = useSessionRuns((s) => s.runs.length > 0);
  useEffect(() => {
    // A failed read leaves the list as it was: the page works without it.
    const reload = () => void load().catch(() => undefined);
    reload();
    // A run's record and images are written just after its reply: read again as they land.
    return subscribeAdminEvents({
      onImage: (image) => {
        if (image.source === 'studio' && image.endpoint === GENERATIONS) reload();
      },
      onUsage: (record) => {
        if (record.endpoint === GENERATIONS) reload();
      },
    });
  }, [load]);
  if (!any) return null;
  return (
    <Suspense fallback={null}>
      <SessionRuns />
    </Suspense>
  );
}
