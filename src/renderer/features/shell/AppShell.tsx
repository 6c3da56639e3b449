import { useEffect } from 'react';
import type { GatewayStatus } from '../../lib/api/status';
import { whenIdle } from '../../lib/idle';
import { pollWhileVisible } from '../../lib/visiblePoll';
import { useRouteStore } from '../../stores/route';
import { useStatusStore } from '../../stores/status';
import { useUiStore } from '../../stores/ui';
import { NotFoundPage } from './NotFoundPage';
import { ROUTES, routeFor } from './routes';
import { ShortcutsHelp } from './ShortcutsHelp';
import { Sidebar } from './Sidebar';
import { useShortcuts, type ShortcutHandlers } from './useShortcuts';

/**
 * How often the sidebar's upstream badge is checked while the studio is visible: accounts cool
 * down and come back without anyone touching the studio. The Accounts page refreshes it at once.
 */
const STATUS_POLL_MS = 15_000;

/** Sidebar, the current page and the shortcut help; the global shortcuts live here. */
export function AppShell({ status }: { status: GatewayStatus | null }) {
  const path = useRouteStore((s) => s.path);
  const navigate = useRouteStore((s) => s.navigate);
  const listen = useRouteStore((s) => s.listen);
  const helpOpen = useUiStore((s) => s.helpOpen);
  const setHelpOpen = useUiStore((s) => s.setHelpOpen);

  useEffect(() => listen(), [listen]);
  const refreshStatus = useStatusStore((s) => s.refresh);
  useEffect(() => pollWhileVisible(() => void refreshStatus(), STATUS_POLL_MS), [refreshStatus]);
  // Once the studio is idle after starting, pages load what they show first (the gallery's list),
  // so a first visit paints without waiting for it.
  useEffect(() => whenIdle(() => ROUTES.forEach((route) => route.prefetch?.())), []);

  const handlers: ShortcutHandlers = { help: () => setHelpOpen(!helpOpen) };
  for (const route of ROUTES) handlers[route.shortcut] = () => navigate(route.path);
  useShortcuts(handlers);

  const route = routeFor(path);
  const Current = route?.page;
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <Sidebar status={status} />
      <main id="content" className="main" data-route={route?.path ?? 'not-found'}>
        {Current ? <Current key={route.path} /> : <NotFoundPage path={path} />}
      </main>
      <ShortcutsHelp />
    </div>
  );
}
