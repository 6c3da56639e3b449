import type { ImageRecord, StudioRun } from '../../../shared/admin';
import { CopyField } from '../../components/CopyField';
import { Page } from '../../components/Page';
import { admin } from '../../lib/api/admin';
import { adminUrls } from '../../lib/api/urls';
import { gateway } from '../../lib/api/images';
import type { GatewayStatus } from '../../lib/api/status';
import { isDesktop } from '../../lib/desktop';
import { formatCount, formatDateTime, formatUsd } from '../../lib/format';
import { useResource } from '../../lib/hooks';
import { useEditStore } from '../../stores/edit';
import { useGenerateStore } from '../../stores/generate';
import { useRouteStore } from '../../stores/route';
import { useStatusStore } from '../../stores/status';
import { reuseOf } from '../gallery/reuse';
import { NavLink } from '../shell/NavLink';

/** How many of the newest studio images the home page shows. */
const RECENT = 8;

/** What the home page shows of the person's work: read together, once per visit. */
export interface HomeData {
  recent: ImageRecord[];
  lastRun: StudioRun | null;
  today: { requests: number; images: number; costMicros: number };
}

/** Local midnight today, ms: "today" is the person's day. */
export function startOfToday(now: Date = new Date()): number {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
}

async function loadHome(signal: AbortSignal): Promise<HomeData> {
  const [recent, runs, totals] = await Promise.all([
    gateway.listImages({ source: 'studio', limit: RECENT }, signal),
    admin.studioRuns({ endpoint: 'generations', limit: 1 }, signal),
    admin.usageTotals({ since: startOfToday() }, signal),
  ]);
  const row = totals[0];
  return {
    recent: recent.images.slice(0, RECENT),
    lastRun: runs.runs[0] ?? null,
    today: {
      requests: row?.requests ?? 0,
      images: row?.images ?? 0,
      costMicros: row?.costMicros ?? 0,
    },
  };
}

/** The artist's home (issue 22): recent images, the way back into the work, today's spend. */
export function HomePage() {
  const status = useStatusStore((s) => s.status);
  const phase = useStatusStore((s) => s.phase);
  const home = useResource((signal) => loadHome(signal));
  const editing = useEditStore((s) => s.references.length > 0);
  const navigate = useRouteStore((s) => s.navigate);
  const continueRun = (run: StudioRun) => {
    const generate = useGenerateStore.getState();
    const first = run.images[0];
    if (first) {
      const { draft, params } = reuseOf(first, generate.params);
      generate.apply(draft, { ...params, n: run.n });
    } else if (run.prompt) {
      generate.setDraft({ text: run.prompt });
    }
    navigate('/generate');
  };
  return (
    <HomeView
      status={status}
      ready={(phase === 'ready' || phase === 'error') && home.loaded}
      home={home.data ?? null}
      editing={editing}
      onContinueRun={continueRun}
    />
  );
}

export function HomeView(props: {
  status: GatewayStatus | null;
  ready: boolean;
  home: HomeData | null;
  /** Edit has work in progress (references on its canvas). */
  editing: boolean;
  onContinueRun: (run: StudioRun) => void;
}) {
  const { status, home } = props;
  const simulated = status?.upstream.kind === 'simulator';
  const lastRun = home?.lastRun ?? null;
  return (
    <Page
      id="home"
      title="Atelier"
      description="Your images, your work in progress, and what today cost"
      ready={props.ready}
    >
      {simulated && (
        <p className="notice notice-info">
          No account is connected, so images come from the built-in offline simulator. Nothing
          leaves this computer.
        </p>
      )}

      <div className="start-cards">
        {lastRun && (lastRun.prompt || lastRun.images.length > 0) ? (
          <button
            type="button"
            className="start-card"
            onClick={() => props.onContinueRun(lastRun)}
            data-testid="home-continue-run"
          >
            <strong>Continue the last run</strong>
            <span className="home-last-prompt">{lastRun.prompt ?? 'No image kept'}</span>
            <span className="muted">{formatDateTime(lastRun.createdAt)}</span>
          </button>
        ) : (
          <NavLink to="/generate" className="start-card" testId="start-generate">
            <strong>Generate</strong>
            <span>Describe an image, see it stream in, know what it cost.</span>
          </NavLink>
        )}
        <NavLink to="/edit" className="start-card" testId="start-edit">
          <strong>{props.editing ? 'Continue editing' : 'Edit'}</strong>
          <span>
            {props.editing
              ? 'Your canvas, mask and chain are where you left them.'
              : 'Paint a mask over a picture and change just that part.'}
          </span>
        </NavLink>
        <div className="start-card home-spend" data-testid="home-spend-today">
          <strong>Spent today</strong>
          <span className="home-spend-amount" data-cost-micros={home?.today.costMicros ?? 0}>
            {formatUsd(home?.today.costMicros ?? 0)}
          </span>
          <span className="muted">
            {formatCount(home?.today.images ?? 0)} images from{' '}
            {formatCount(home?.today.requests ?? 0)} requests
          </span>
        </div>
      </div>

      <section aria-labelledby="recent-heading" data-testid="home-recent">
        <h2 id="recent-heading">
          Recent images{' '}
          <NavLink to="/gallery" className="hint">
            all in the Gallery
          </NavLink>
        </h2>
        {home && home.recent.length === 0 ? (
          <p className="muted">Nothing yet: what you generate or edit shows here.</p>
        ) : (
          <ul className="home-recent">
            {(home?.recent ?? []).map((image) => (
              <li key={image.id} data-testid="home-recent-image" data-image-id={image.id}>
                <NavLink to="/gallery" className="home-recent-link">
                  <img src={adminUrls.thumb(image.id)} alt={image.prompt} loading="lazy" />
                </NavLink>
              </li>
            ))}
          </ul>
        )}
      </section>

      {status && (
        <section className="panel" aria-labelledby="address-heading" data-testid="home-other-apps">
          <h2 id="address-heading">Use it from other apps</h2>
          <CopyField label="Base URL for OpenAI clients" value={`${status.address}/v1`} />
          <p className="hint">
            Any OpenAI-compatible client works with a key from the{' '}
            <NavLink to="/keys">Keys</NavLink> page; the <NavLink to="/server">Server</NavLink> page
            has examples.
          </p>
        </section>
      )}

      <p className="hint">
        {status ? `${status.name} ${status.version} · ` : ''}
        {isDesktop() ? 'Desktop app' : 'Web studio'}
      </p>
    </Page>
  );
}
