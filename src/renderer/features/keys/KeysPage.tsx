import { useState } from 'react';
import type { KeyView } from '../../../shared/admin';
import { Badge } from '../../components/Badge';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Page } from '../../components/Page';
import { formatAgo, formatCount, formatDateTime, formatUsd } from '../../lib/format';
import { admin } from '../../lib/api/admin';
import type { GatewayErrorInfo } from '../../lib/api/errors';
import { errorInfo, useNow, useResource } from '../../lib/hooks';
import { KeyFormDialog } from './KeyFormDialog';
import { NewKeyDialog } from './NewKeyDialog';
import '../../components/admin.css';
import './keys.css';

type Editing = { mode: 'create' } | { mode: 'edit'; key: KeyView } | null;

/** The spec's /keys page: API keys for other apps, with their spend and last use. */
export function KeysPage() {
  const keys = useResource((signal) => admin.keys(signal));
  const [editing, setEditing] = useState<Editing>(null);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<KeyView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<GatewayErrorInfo | null>(null);
  const now = useNow(30_000);

  const setStatus = async (key: KeyView, status: 'active' | 'disabled') => {
    setBusy(key.id);
    setFailure(null);
    try {
      await admin.updateKey(key.id, { status });
      keys.reload();
    } catch (e) {
      setFailure(errorInfo(e));
    } finally {
      setBusy(null);
    }
  };

  const list = keys.data ?? [];
  return (
    <Page
      id="keys"
      title="Keys"
      description="API keys for the apps that call this gateway: each with its own name, group, cap and spend."
      ready={keys.loaded}
      actions={
        <button
          type="button"
          className="primary"
          onClick={() => setEditing({ mode: 'create' })}
          data-testid="create-key"
        >
          Create key
        </button>
      }
    >
      {keys.error && <ErrorNotice error={keys.error} onRetry={keys.reload} testId="keys-error" />}
      {failure && <ErrorNotice error={failure} testId="key-action-error" />}
      <div className="table-wrap keys-table-wrap">
        <table className="data-table" data-testid="keys-table">
          <caption className="visually-hidden">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" className="col-key">
                Key
              </th>
              <th scope="col" className="col-group">
                Group
              </th>
              <th scope="col">Status</th>
              <th
                scope="col"
                className="num col-cap"
                title="Concurrency cap: requests this key may run at the same time"
              >
                At once
              </th>
              <th
                scope="col"
                className="col-ladder"
                title="Fallback ladder: when a size or quality cannot be delivered, step down instead of failing"
              >
                Fallback
              </th>
              <th scope="col" className="num col-requests">
                Requests
              </th>
              <th scope="col" className="num">
                Spend
              </th>
              <th scope="col" className="col-last-used">
                Last used
              </th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((key) => (
              <tr
                key={key.id}
                data-testid="key-row"
                data-key-id={key.id}
                data-key-name={key.name}
                data-status={key.status}
              >
                <th scope="row">
                  {key.name} {key.builtIn && <Badge tone="accent">Built in</Badge>}
                  {/* Shown when the narrow table leaves out the key and group columns. */}
                  <span className="key-sub muted">
                    <span className="mono">atl_{key.prefix}…</span> · {key.group}
                  </span>
                </th>
                <td className="mono col-key">atl_{key.prefix}…</td>
                <td className="col-group">{key.group}</td>
                <td>
                  <span
                    className={`status ${key.status === 'active' ? 'status-ok' : 'status-off'}`}
                    data-testid="key-status"
                  >
                    {key.status === 'active' ? 'Active' : 'Disabled'}
                  </span>
                </td>
                <td className="num col-cap">{key.concurrencyLimit ?? 'No cap'}</td>
                <td className="col-ladder">{key.fallbackLadder ? 'On' : 'Off'}</td>
                <td className="num col-requests">{formatCount(key.requests)}</td>
                <td className="num" data-testid="key-spend">
                  {formatUsd(key.costMicros)}
                </td>
                <td
                  className="col-last-used"
                  title={key.lastUsedAt ? formatDateTime(key.lastUsedAt) : undefined}
                >
                  {formatAgo(key.lastUsedAt, now)}
                </td>
                <td>
                  <div className="actions">
                    <button
                      type="button"
                      onClick={() => setEditing({ mode: 'edit', key })}
                      aria-label={`Edit ${key.name}`}
                      data-testid="key-edit"
                    >
                      Edit
                    </button>
                    {key.builtIn ? (
                      <span className="muted" title="The studio itself uses this key">
                        Used by the studio
                      </span>
                    ) : (
                      <>
                        <button
                          type="button"
                          onClick={() =>
                            void setStatus(key, key.status === 'active' ? 'disabled' : 'active')
                          }
                          disabled={busy === key.id}
                          aria-label={`${key.status === 'active' ? 'Disable' : 'Enable'} ${key.name}`}
                          data-testid={key.status === 'active' ? 'key-disable' : 'key-enable'}
                        >
                          {key.status === 'active' ? 'Disable' : 'Enable'}
                        </button>
                        <button
                          type="button"
                          className="danger"
                          onClick={() => setDeleting(key)}
                          aria-label={`Delete ${key.name}`}
                          data-testid="key-delete"
                        >
                          Delete
                        </button>
                      </>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {keys.loaded && list.length === 0 && !keys.error && (
          <p className="empty-state">
            No keys yet. Create one for each app that calls the gateway.
          </p>
        )}
      </div>
      <p className="hint">
        Spend and requests count every request a key has made. A disabled key is refused with 401
        until you enable it again; a deleted key is gone for good, but its usage stays in the log.
      </p>

      {editing && (
        <KeyFormDialog
          editing={editing.mode === 'edit' ? editing.key : null}
          onClose={() => setEditing(null)}
          onCreated={(secret, record) => {
            setEditing(null);
            setCreated({ name: record.name, secret });
            keys.reload();
          }}
          onSaved={() => {
            setEditing(null);
            keys.reload();
          }}
        />
      )}
      {created && (
        <NewKeyDialog
          name={created.name}
          secret={created.secret}
          onClose={() => setCreated(null)}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete key “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete key"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await admin.deleteKey(deleting.id);
          keys.reload();
        }}
      >
        <p>
          Apps using it get 401 from then on. This cannot be undone; its past usage stays in the
          log.
        </p>
      </ConfirmDialog>
    </Page>
  );
}
