import { CodeBlock } from '../../components/CodeBlock';
import { CopyField } from '../../components/CopyField';
import { Page } from '../../components/Page';
import type { GatewayStatus } from '../../lib/api/images';
import { isDesktop } from '../../lib/desktop';
import { useStatusStore } from '../../stores/status';
import { NavLink } from '../shell/NavLink';
import { curlSnippet } from './curlSnippet';

/** The start page: what to do first, and where other apps reach the gateway. */
export function HomePage() {
  const status = useStatusStore((s) => s.status);
  const phase = useStatusStore((s) => s.phase);
  return <HomeView status={status} ready={phase === 'ready' || phase === 'error'} />;
}

export function HomeView({ status, ready }: { status: GatewayStatus | null; ready: boolean }) {
  const simulated = status?.upstream.kind === 'simulator';
  return (
    <Page
      id="home"
      title="Welcome to Atelier"
      description="Image studio and OpenAI-compatible image gateway on this computer"
      ready={ready}
    >
      {simulated && (
        <p className="notice notice-info">
          No account is connected, so images come from the built-in offline simulator. Nothing
          leaves this computer.
        </p>
      )}

      <div className="start-cards">
        <NavLink to="/generate" className="start-card" testId="start-generate">
          <strong>Generate</strong>
          <span>Describe an image, see it stream in, know what it cost.</span>
        </NavLink>
        <NavLink to="/edit" className="start-card" testId="start-edit">
          <strong>Edit</strong>
          <span>Paint a mask over a picture and change just that part.</span>
        </NavLink>
        <NavLink to="/gallery" className="start-card">
          <strong>Gallery</strong>
          <span>Every image you and your apps made, with its prompt and cost.</span>
        </NavLink>
      </div>

      {status && (
        <section className="panel" aria-labelledby="address-heading">
          <h2 id="address-heading">Use it from other apps</h2>
          <CopyField label="Base URL for OpenAI clients" value={`${status.address}/v1`} />
          <p>
            Any OpenAI-compatible client works: set its base URL to the address above (it ends in{' '}
            <code>/v1</code>) and send a key as a bearer token.
          </p>
          <CodeBlock label="Example request" code={curlSnippet(status.address)} />
          <p className="hint">
            Make keys on the <NavLink to="/keys">Keys</NavLink> page or with{' '}
            <code>npx atelier keys create --name NAME</code>
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
