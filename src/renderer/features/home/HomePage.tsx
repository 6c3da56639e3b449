import { Badge } from '../../components/Badge';
import { CodeBlock } from '../../components/CodeBlock';
import { CopyField } from '../../components/CopyField';
import type { GatewayStatus } from '../../lib/api';
import { isDesktop } from '../../lib/desktop';
import { curlSnippet } from './curlSnippet';

/** Placeholder studio page: what is running, where, and how to call it. */
export function HomePage({ status }: { status: GatewayStatus }) {
  const simulated = status.upstream.kind === 'simulator';
  return (
    <>
      <header className="masthead">
        <div>
          <h1>{status.name}</h1>
          <p className="tagline">
            Image studio and OpenAI-compatible image gateway on this computer
          </p>
        </div>
        <Badge tone={simulated ? 'accent' : 'neutral'}>
          {simulated ? 'Offline simulator' : status.upstream.label}
        </Badge>
      </header>

      <main className="content">
        {simulated && (
          <p className="panel notice">
            No account is connected, so images come from the built-in offline simulator. Nothing
            leaves this computer.
          </p>
        )}

        <section className="panel" aria-labelledby="address-heading">
          <h2 id="address-heading">Gateway</h2>
          <CopyField label="Base URL for OpenAI clients" value={`${status.address}/v1`} />
        </section>

        <section className="panel" aria-labelledby="call-heading">
          <h2 id="call-heading">How to call it</h2>
          <p>
            Any OpenAI-compatible client works: set its base URL to the address above (it ends in{' '}
            <code>/v1</code>) and send your key as a bearer token.
          </p>
          <CodeBlock label="Example request" code={curlSnippet(status.address)} />
          <p className="hint">
            Keys are made on the command line: <code>npx atelier keys create --name NAME</code>
          </p>
        </section>

        <p className="hint">The full studio (generate, edit, gallery, usage) is on its way.</p>
      </main>

      <footer className="footer">
        <span>
          {status.name} {status.version}
        </span>
        <span>{isDesktop() ? 'Desktop app' : 'Web studio'}</span>
      </footer>
    </>
  );
}
