import { Badge } from '../../components/Badge';
import { BudgetNotices } from '../budget/BudgetNotices';
import { BudgetRing } from '../budget/BudgetRing';
import type { GatewayStatus } from '../../lib/api/status';
import { useUiStore } from '../../stores/ui';
import { NavLink } from './NavLink';
import { RunWatch, useRunning } from './RunWatch';
import { ROUTES } from './routes';
import { ThemeSwitch } from './ThemeSwitch';

const GROUPS = ['Studio', 'Gateway'] as const;

export function Sidebar({ status }: { status: GatewayStatus | null }) {
  const setHelpOpen = useUiStore((s) => s.setHelpOpen);
  const simulated = status?.upstream.kind === 'simulator';
  return (
    <aside className="sidebar">
      <div className="brand">
        <NavLink to="/" className="brand-link">
          <span className="brand-mark" aria-hidden="true" />
          Atelier
        </NavLink>
        {status && (
          <span data-testid={simulated ? 'simulator-badge' : 'upstream-badge'}>
            <Badge tone={simulated ? 'accent' : 'neutral'}>
              {simulated ? 'Offline simulator' : status.upstream.label}
            </Badge>
          </span>
        )}
      </div>
      <nav aria-label="Studio pages">
        {GROUPS.map((group) => (
          <div key={group} className="nav-group">
            <h2 className="nav-heading" id={`nav-${group}`}>
              {group}
            </h2>
            <ul aria-labelledby={`nav-${group}`}>
              {ROUTES.filter((r) => r.group === group).map((route) => (
                <li key={route.path}>
                  <NavLink
                    to={route.path}
                    className="nav-link"
                    testId={`nav-${route.label.toLowerCase()}`}
                    onIntent={route.prefetch}
                  >
                    {route.label}
                    {(route.path === '/generate' || route.path === '/edit') && (
                      <NavRunning kind={route.path === '/generate' ? 'generate' : 'edit'} />
                    )}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <BudgetRing />
      <BudgetNotices />
      <RunWatch />
      <div className="sidebar-footer">
        <ThemeSwitch />
        <button
          type="button"
          className="help-button"
          onClick={() => setHelpOpen(true)}
          data-testid="open-shortcuts"
        >
          Keyboard shortcuts <kbd>?</kbd>
        </button>
        {status && (
          <p className="version">
            {status.name} {status.version}
          </p>
        )}
      </div>
    </aside>
  );
}

/** A spinner beside Generate or Edit while its run is working. */
function NavRunning({ kind }: { kind: 'generate' | 'edit' }) {
  const running = useRunning(kind);
  if (!running) return null;
  return (
    <span className="nav-running" data-testid={`nav-running-${kind}`} title="Working">
      <span className="spinner" aria-hidden="true" />
      <span className="visually-hidden">(working)</span>
    </span>
  );
}
