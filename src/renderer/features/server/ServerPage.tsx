import { useEffect, useState } from 'react';
import type { UsageRecord } from '../../../shared/admin';
import { CodeBlock } from '../../components/CodeBlock';
import { CopyField } from '../../components/CopyField';
import { SelectField } from '../../components/fields';
import { Page } from '../../components/Page';
import { admin } from '../../lib/api/admin';
import { subscribeAdminEvents } from '../../lib/api/adminEvents';
import { useResource } from '../../lib/hooks';
import { useStatusStore } from '../../stores/status';
import { NavLink } from '../shell/NavLink';
import { RequestLog } from './RequestLog';
import { baseUrl, curlSnippet, KEY_VARIABLE, nodeSnippet } from './snippets';
import '../../components/admin.css';

/** How many rows the live log keeps. */
const LOG_SIZE = 100;

/** Where other apps reach the gateway, how to call it, and what it is doing right now. */
export function ServerPage() {
  const status = useStatusStore((s) => s.status);
  const keys = useResource((signal) => admin.keys(signal));
  const recent = useResource((signal) => admin.usage({ limit: 20 }, signal));
  const [chosen, setChosen] = useState('');
  const [live, setLive] = useState<UsageRecord[]>([]);
  const [connected, setConnected] = useState<boolean | null>(null);
  const [paused, setPaused] = useState(false);

  useEffect(
    () =>
      subscribeAdminEvents({
        onConnection: setConnected,
        onUsage: (record) =>
          setLive((rows) =>
            [record, ...rows.filter((r) => r.requestId !== record.requestId)].slice(0, LOG_SIZE),
          ),
      }),
    [],
  );

  const [frozen, setFrozen] = useState<UsageRecord[] | null>(null);
  const merged = mergeLog(live, recent.data?.records ?? []);
  const shown = paused && frozen ? frozen : merged;

  const usable = (keys.data ?? []).filter((k) => k.status === 'active');
  const key = usable.find((k) => k.id === chosen) ?? null;
  // The gateway serves the studio, so its own origin is the address until the status arrives.
  const address =
    status?.address ??
    (typeof location === 'undefined' ? 'http://127.0.0.1:8787' : location.origin);

  return (
    <Page
      id="server"
      title="Server"
      description="The local address other apps call, ready-made snippets, and a live log of requests."
      ready={keys.loaded && recent.loaded && connected !== null}
    >
      <section className="panel" aria-labelledby="server-address">
        <h2 id="server-address">Address</h2>
        <CopyField label="Base URL for OpenAI clients" value={baseUrl(address)} />
        <p className="hint">
          Every call needs a key as a bearer token: make one per app on the{' '}
          <NavLink to="/keys">Keys</NavLink> page. Bind address, port and allowed browser origins
          are on the <NavLink to="/settings">Settings</NavLink> page.
        </p>
      </section>

      <section className="panel" aria-labelledby="server-snippets">
        <h2 id="server-snippets">Call it</h2>
        <SelectField
          label="Write the snippets for"
          value={chosen}
          options={[
            { value: '', label: 'any key' },
            ...usable.map((k) => ({ value: k.id, label: `${k.name} (atl_${k.prefix}…)` })),
          ]}
          onChange={setChosen}
          testId="snippet-key"
        />
        <p className="notice notice-info">
          A key is shown only once, when it is created, so the snippets read it from the{' '}
          <code>${KEY_VARIABLE}</code> environment variable: set it to your key first (
          <code>export {KEY_VARIABLE}=atl_…</code>).
        </p>
        <CodeBlock label="curl" code={curlSnippet(address, key)} />
        <CodeBlock label="openai-node" code={nodeSnippet(address, key)} />
      </section>

      <section aria-labelledby="server-log">
        <div className="section-header">
          <h2 id="server-log">Live request log</h2>
          <div className="toolbar-end">
            <span
              className={`status ${connected ? 'status-ok' : 'status-warn'}`}
              role="status"
              data-testid="log-connection"
            >
              {connected === null ? 'Connecting…' : connected ? 'Live' : 'Reconnecting…'}
            </span>
            <button
              type="button"
              aria-pressed={paused}
              onClick={() => {
                setFrozen(paused ? null : merged);
                setPaused(!paused);
              }}
              data-testid="log-pause"
            >
              {paused ? 'Resume' : 'Pause'}
            </button>
          </div>
        </div>
        <RequestLog records={shown} live={connected === true && !paused} />
      </section>
    </Page>
  );
}

/** The live rows on top of the ones loaded at start, each request once, newest first. */
function mergeLog(live: UsageRecord[], loaded: UsageRecord[]): UsageRecord[] {
  const seen = new Set(live.map((r) => r.requestId));
  return [...live, ...loaded.filter((r) => !seen.has(r.requestId))]
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, LOG_SIZE);
}
