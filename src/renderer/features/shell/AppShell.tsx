import { useEffect } from 'react';
import type { GatewayStatus } from '../../lib/gateway';
import { useRouteStore } from '../../stores/route';
import { useUiStore } from '../../stores/ui';
import { NotFoundPage } from './NotFoundPage';
import { ROUTES, routeFor } from './routes';
import { ShortcutsHelp } from './ShortcutsHelp';
import { Sidebar } from './Sidebar';
import { useShortcuts, type ShortcutHandlers } from './useShortcuts';

/** Sidebar, the current page and the shortcut help; the global shortcuts live here. */
export function AppShell({ status }: { status: GatewayStatus | null }) {
  const path = useRouteStore((s) => s.path);
  const navigate = useRouteStore((s) => s.navigate);
  const listen = useRouteStore((s) => s.listen);
  const helpOpen = useUiStore((s) => s.helpOpen);
  const setHelpOpen = useUiStore((s) => s.setHelpOpen);

  useEffect(() => listen(), [listen]);

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
