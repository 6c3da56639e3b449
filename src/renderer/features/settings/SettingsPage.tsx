import { useId, useState } from 'react';
import type { Settings, SettingsResponse } from '../../../shared/admin';
import { ErrorNotice } from '../../components/ErrorNotice';
import { CheckboxField, describedBy, FieldShell, Segmented } from '../../components/fields';
import { Page } from '../../components/Page';
import { TextField } from '../../components/TextField';
import { desktopApi, isDesktop } from '../../lib/desktop';
import { admin } from '../../lib/api/admin';
import type { GatewayErrorInfo } from '../../lib/api/errors';
import { errorInfo, useResource } from '../../lib/hooks';
import { StudioBudgetPanel } from '../budget/StudioBudgetPanel';
import { PricesTable } from './PricesTable';
import {
  errorField,
  portHint,
  settingsPatch,
  toForm,
  type SettingsErrors,
  type SettingsForm,
} from './settingsForm';
import '../../components/admin.css';
import './settings.css';

/** Everything the gateway lets the studio change, and what is fixed when it starts. */
export function SettingsPage() {
  const settings = useResource((signal) => admin.settings(signal));
  const prices = useResource((signal) => admin.prices(signal));
  return (
    <Page
      id="settings"
      title="Settings"
      description="How the gateway behaves. Changes apply to the next request."
      ready={settings.loaded && prices.loaded}
    >
      {settings.error && <ErrorNotice error={settings.error} onRetry={settings.reload} />}
      {settings.data && (
        // Keyed by what the server holds: a save that changes it starts the form afresh.
        <SettingsEditor key={JSON.stringify(settings.data.settings)} initial={settings.data} />
      )}
      <StudioBudgetPanel />
      <section className="panel" aria-labelledby="prices-heading">
        <h2 id="prices-heading">Prices</h2>
        <p className="hint">
          Used to price every request as it is recorded; requests already in the log keep the cost
          they were given.
        </p>
        {prices.error && <ErrorNotice error={prices.error} onRetry={prices.reload} />}
        {prices.data && <PricesTable prices={prices.data} onSaved={() => prices.reload()} />}
      </section>
    </Page>
  );
}

function SettingsEditor({ initial }: { initial: SettingsResponse }) {
  const [saved, setSaved] = useState(initial);
  const [form, setForm] = useState<SettingsForm>(() => toForm(initial.settings));
  const [errors, setErrors] = useState<SettingsErrors>({});
  const [failure, setFailure] = useState<GatewayErrorInfo | null>(null);
  const [state, setState] = useState<'idle' | 'saving' | 'saved'>('idle');
  const originsId = useId();
  const set = (patch: Partial<SettingsForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    setState('idle');
  };

  const check = settingsPatch(form, saved.settings);
  const dirty = !check.ok || Object.keys(check.patch).length > 0;

  const save = async () => {
    setFailure(null);
    if (!check.ok) {
      setErrors(check.errors);
      return;
    }
    setErrors({});
    setState('saving');
    try {
      const next = await admin.updateSettings(check.patch);
      setSaved(next);
      setForm(toForm(next.settings));
      setState('saved');
    } catch (e) {
      const info = errorInfo(e);
      const at = errorField(info.param, info.message);
      if (at) setErrors({ [at.field]: at.message });
      else setFailure(info);
      setState('idle');
    }
  };

  const { server } = saved;
  const reveal = desktopApi()?.revealInFolder;
  return (
    <form
      className="settings-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      noValidate
      data-testid="settings-form"
    >
      <section className="panel" aria-labelledby="settings-server">
        <h2 id="settings-server">Server</h2>
        <dl className="facts" data-testid="server-facts">
          <div>
            <dt>Serving on</dt>
            <dd className="mono">{server.address}</dd>
          </div>
          <div>
            <dt>Data folder</dt>
            <dd className="mono">
              {server.dataDir}{' '}
              {reveal && (
                <button type="button" onClick={() => void reveal(server.dataDir)}>
                  Show in folder
                </button>
              )}
            </dd>
          </div>
        </dl>
        <div className="form-grid">
          <Segmented
            label="Listen on"
            value={form.serverHost}
            options={[
              { value: '127.0.0.1', label: '127.0.0.1 (IPv4)' },
              { value: '::1', label: '::1 (IPv6)' },
            ]}
            onChange={(serverHost) => set({ serverHost })}
            hint="The bind address, loopback only: other apps on this computer reach Atelier, the network does not."
            testId="setting-serverHost"
          />
          <TextField
            label="Port"
            value={form.serverPort}
            onChange={(serverPort) => set({ serverPort })}
            error={errors.serverPort}
            hint={portHint(saved.settings.serverPort, server.port)}
            inputMode="numeric"
            testId="setting-serverPort"
          />
        </div>
        <p className="hint" data-testid="server-facts-hint">
          {addressPending(saved)
            ? `Saved: Atelier listens on ${formatAddress(saved.settings)} from its next start. `
            : 'The address applies from the next start. '}
          {isDesktop() ? (
            <>
              When another program holds the port, the desktop app takes a free one and the tray
              says which. The data folder moves with <code>ATELIER_DATA_DIR</code>.
            </>
          ) : (
            <>
              <code>atelier serve --host --port</code> override it for one run; the data folder is{' '}
              <code>--data-dir</code> (or <code>ATELIER_DATA_DIR</code>).
            </>
          )}
        </p>
      </section>

      <section className="panel" aria-labelledby="settings-requests">
        <h2 id="settings-requests">Requests</h2>
        <CheckboxField
          label="Refuse an image of another size than asked"
          checked={form.strictDelivery}
          onChange={(strictDelivery) => set({ strictDelivery })}
          hint="Strict delivery: answer 502 when the upstream delivers another size or format than asked, instead of passing it on with the real size reported"
          testId="setting-strictDelivery"
        />
        <CheckboxField
          label="Step down instead of failing, for every key"
          checked={form.fallbackLadder}
          onChange={(fallbackLadder) => set({ fallbackLadder })}
          hint="Fallback ladder: when a size or quality cannot be delivered, step down to the nearest one that can (keys can opt in on their own)"
          testId="setting-fallbackLadder"
        />
        <Segmented
          label="Check prompts before sending"
          value={form.contentFilter}
          options={[
            { value: 'block', label: 'Block' },
            { value: 'off', label: 'Off' },
          ]}
          onChange={(contentFilter) => set({ contentFilter })}
          hint="Content pre-filter: refuse prompts the provider would refuse, before they cost anything"
          testId="setting-contentFilter"
        />
        <div className="form-grid">
          <TextField
            label="Wait for an image up to 2560x1440 (seconds)"
            hint="Upstream timeout: how long the provider may take before the request fails"
            value={form.timeoutNormalS}
            onChange={(timeoutNormalS) => set({ timeoutNormalS })}
            inputMode="decimal"
            error={errors.timeoutNormalS}
            testId="setting-timeoutNormal"
          />
          <TextField
            label="Wait for a larger image (seconds)"
            hint="Upstream timeout above 2560x1440: 4K takes minutes"
            value={form.timeoutLargeS}
            onChange={(timeoutLargeS) => set({ timeoutLargeS })}
            inputMode="decimal"
            error={errors.timeoutLargeS}
            testId="setting-timeoutLarge"
          />
        </div>
      </section>

      <section className="panel" aria-labelledby="settings-clients">
        <h2 id="settings-clients">Clients</h2>
        <FieldShell
          id={originsId}
          label="Web pages that may call Atelier"
          hint="Allowed browser origins (CORS): web pages on these origins may call /v1 (one per line, e.g. http://localhost:5173). Never the studio’s own API."
          error={errors.allowedOrigins}
        >
          <textarea
            id={originsId}
            value={form.allowedOrigins}
            onChange={(e) => set({ allowedOrigins: e.target.value })}
            rows={3}
            spellCheck={false}
            aria-invalid={errors.allowedOrigins ? true : undefined}
            aria-describedby={describedBy(originsId, true, errors.allowedOrigins)}
            data-testid="setting-allowedOrigins"
          />
        </FieldShell>
        <CheckboxField
          label="Add the image tool for agent clients"
          checked={form.injectImageTool}
          onChange={(injectImageTool) => set({ injectImageTool })}
          hint="Official agent clients that call /v1/responses without the image tool get it added"
          testId="setting-injectImageTool"
        />
        <TextField
          label="Text model for subscription accounts"
          value={form.bridgeModel}
          onChange={(bridgeModel) => set({ bridgeModel })}
          hint="Bridge text model: the text model subscription accounts use to make images through the Responses bridge"
          error={errors.bridgeModel}
          testId="setting-bridgeModel"
        />
      </section>

      <section className="panel" aria-labelledby="settings-gallery">
        <h2 id="settings-gallery">Gallery</h2>
        <CheckboxField
          label="Keep images made through the API"
          checked={form.keepApiImages}
          onChange={(keepApiImages) => set({ keepApiImages })}
          hint="Studio images are always kept; with this on, other apps’ images appear in the gallery too"
          testId="setting-keepApiImages"
        />
      </section>

      {failure && <ErrorNotice error={failure} testId="settings-error" />}
      <div className="settings-actions">
        <span role="status" className="muted" data-testid="settings-state">
          {state === 'saved' ? 'Saved. The next request uses the new settings.' : ''}
          {state === 'idle' && dirty ? 'Unsaved changes' : ''}
        </span>
        <button
          type="button"
          onClick={() => {
            setForm(toForm(saved.settings));
            setErrors({});
            setState('idle');
          }}
          disabled={!dirty || state === 'saving'}
        >
          Discard
        </button>
        <button
          type="submit"
          className="primary"
          disabled={!dirty || state === 'saving'}
          data-testid="settings-save"
        >
          {state === 'saving' ? 'Saving…' : 'Save settings'}
        </button>
      </div>
    </form>
  );
}

/** `host:port` as a URL writes it (IPv6 in brackets). */
function formatAddress({ serverHost, serverPort }: Pick<Settings, 'serverHost' | 'serverPort'>) {
  const host = serverHost.includes(':') ? `[${serverHost}]` : serverHost;
  return serverPort === 0 ? `${host} on any free port` : `${host}:${serverPort}`;
}

/** Whether the saved address differs from the one in use (it applies from the next start). */
function addressPending({ settings, server }: SettingsResponse): boolean {
  return (
    settings.serverHost !== server.host ||
    (settings.serverPort !== server.port && settings.serverPort !== 0)
  );
}
