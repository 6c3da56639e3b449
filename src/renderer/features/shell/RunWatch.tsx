import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { useRouteStore } from '../../stores/route';
import { useEditRun, useGenerateRun, type RunState } from '../../stores/run';
import { useSessionRuns } from '../../stores/sessionRuns';
import './runWatch.css';

type Kind = 'generate' | 'edit';

const STORES = { generate: useGenerateRun, edit: useEditRun } as const;
const PATHS: Record<Kind, string> = { generate: '/generate', edit: '/edit' };
const NAMES: Record<Kind, string> = { generate: 'Generate', edit: 'Edit' };

interface Landed {
  kind: Kind;
  phase: RunState['phase'];
  images: number;
}

/** Whether a page's run is going (for the sidebar's marks beside Generate and Edit). */
export function useRunning(kind: Kind): boolean {
  return STORES[kind]((s) => s.phase === 'running');
}

function landedText({ kind, phase, images }: Landed): string {
  const name = NAMES[kind];
  if (phase === 'done') return `${name} finished: ${images} image${images === 1 ? '' : 's'} ready.`;
  if (phase === 'cancelled') return `${name} was cancelled.`;
  return `${name} failed: see why on the page.`;
}

/**
 * Runs keep going when the person leaves their page: the sidebar says how many are working, and
 * a run that ends elsewhere says so in a notice with a way back. Generate's finished runs join the
 * session's history here (so one that lands on another page is kept too).
 */
export function RunWatch() {
  const generating = useRunning('generate');
  const editing = useRunning('edit');
  const navigate = useRouteStore((s) => s.navigate);
  const [landed, setLanded] = useState<Landed[]>([]);

  useEffect(() => {
    const unsubscribers = (Object.keys(STORES) as Kind[]).map((kind) =>
      STORES[kind].subscribe((state, previous) => {
        if (previous.phase !== 'running' || state.phase === 'running') return;
        if (kind === 'generate') useSessionRuns.getState().archive(state);
        // Seen where it happened: no notice needed.
        if (useRouteStore.getState().path === PATHS[kind]) return;
        const images = state.slots.filter((s) => s.state === 'done').length;
        setLanded((all) => [
          ...all.filter((l) => l.kind !== kind),
          { kind, phase: state.phase, images },
        ]);
      }),
    );
    // Going to the page is reading the notice.
    unsubscribers.push(
      useRouteStore.subscribe(({ path }) =>
        setLanded((all) =>
          all.some((l) => PATHS[l.kind] === path) ? all.filter((l) => PATHS[l.kind] !== path) : all,
        ),
      ),
    );
    return () => unsubscribers.forEach((u) => u());
  }, []);

  const count = Number(generating) + Number(editing);
  return (
    <>
      {count > 0 && (
        <p
          className="running-indicator"
          role="status"
          data-testid="running-indicator"
          data-count={count}
        >
          <span className="spinner" aria-hidden="true" />
          {count} running
        </p>
      )}
      {/* The notice lives in <body>, not the sticky sidebar: the sidebar is a stacking context of
          its own, so anything of a page (the Edit canvas, the Usage chart) was drawn over it. */}
      {landed.length > 0 &&
        createPortal(
          <div className="run-landed-stack" aria-live="polite" data-testid="run-landed-stack">
            {landed.map((l) => (
              <div
                key={l.kind}
                className={`run-landed run-landed-${l.phase}`}
                data-testid="run-landed"
                data-kind={l.kind}
                data-phase={l.phase}
              >
                <span>{landedText(l)}</span>
                <button
                  type="button"
                  className="primary"
                  onClick={() => navigate(PATHS[l.kind])}
                  data-testid="run-landed-open"
                >
                  Open {NAMES[l.kind]}
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label="Dismiss"
                  onClick={() => setLanded((all) => all.filter((x) => x.kind !== l.kind))}
                >
                  ×
                </button>
              </div>
            ))}
          </div>,
          document.body,
        )}
    </>
  );
}
