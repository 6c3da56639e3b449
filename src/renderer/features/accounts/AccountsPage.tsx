import { useEffect, useState } from 'react';
import type { AccountTestResponse, AccountView } from '../../../shared/admin';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Page } from '../../components/Page';
import { formatDateTime } from '../../lib/format';
import { admin } from '../../lib/api/admin';
import type { GatewayErrorInfo } from '../../lib/api/errors';
import { errorInfo, useInterval, useNow, useResource } from '../../lib/hooks';
import { useStatusStore } from '../../stores/status';
import { accountStatusView, kindLabel, loadShare } from './accountStatus';
import { AddAccountDialog } from './AddAccountDialog';
import { EditAccountDialog } from './EditAccountDialog';
import '../../components/admin.css';
import './accounts.css';

/** Live load and state come from a poll this often. */
const POLL_MS = 3000;

/** Upstream accounts: what serves the images, how busy each is, and why one is resting. */
export function AccountsPage() {
  const accounts = useResource((signal) => admin.accounts(signal));
  const now = useNow(1000);
  useInterval(accounts.reload, POLL_MS);
  // The sidebar's upstream badge follows what this page sees: an account added, removed,
  // disabled, or cooling down.
  const refreshStatus = useStatusStore((s) => s.refresh);
  const states = accounts.data?.accounts.map((a) => `${a.id}:${a.status.state}`).join(' ');
  useEffect(() => {
    if (states !== undefined) void refreshStatus();
  }, [states, refreshStatus]);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<AccountView | null>(null);
  const [deleting, setDeleting] = useState<AccountView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<GatewayErrorInfo | null>(null);
  const [tested, setTested] = useState<Record<string, ConnectionTestView>>({});

  const testConnection = async (account: AccountView) => {
    setBusy(account.id);
    setFailure(null);
    try {
      const result = await admin.testAccount(account.id);
      setTested((all) => ({ ...all, [account.id]: result }));
      accounts.reload();
    } catch (e) {
      setFailure(errorInfo(e));
    } finally {
      setBusy(null);
    }
  };

  const act = async (account: AccountView, patch: Parameters<typeof admin.updateAccount>[1]) => {
    setBusy(account.id);
    setFailure(null);
    try {
      await admin.updateAccount(account.id, patch);
      accounts.reload();
    } catch (e) {
      setFailure(errorInfo(e));
    } finally {
      setBusy(null);
    }
  };

  const list = accounts.data?.accounts ?? [];
  return (
    <Page
      id="accounts"
      title="Accounts"
      description="The upstream accounts that make the images: their capacity, live load and state."
      ready={accounts.loaded}
      actions={
        <button
          type="button"
          className="primary"
          onClick={() => setAdding(true)}
          data-testid="add-account-open"
        >
          Add account
        </button>
      }
    >
      {accounts.error && (
        <ErrorNotice error={accounts.error} onRetry={accounts.reload} testId="accounts-error" />
      )}
      {failure && <ErrorNotice error={failure} testId="account-action-error" />}
      {accounts.data?.simulatorOnly && (
        <p className="notice notice-info" data-testid="simulator-only">
          No account is enabled, so the built-in offline simulator serves every request. Add or
          enable an account to make real images.
        </p>
      )}
      <div className="table-wrap">
        <table className="data-table" data-testid="accounts-table">
          <caption className="visually-hidden">Upstream accounts</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col" title="Tier: a higher one is chosen first for large images">
                Priority
              </th>
              <th scope="col">Group</th>
              <th
                scope="col"
                title="Live load: weight in progress of the capacity (a 1024x1024 image weighs 1)"
              >
                Busy now
              </th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((account) => {
              const status = accountStatusView(account, now);
              const share = loadShare(account);
              return (
                <tr
                  key={account.id}
                  data-testid="account-row"
                  data-account-id={account.id}
                  data-account-name={account.name}
                  data-state={account.status.state}
                >
                  <th scope="row">
                    {account.name}
                    <span className="account-sub muted mono">
                      {account.kind === 'simulator' ? 'built-in simulator' : account.baseUrl}
                    </span>
                  </th>
                  <td>{kindLabel(account.kind)}</td>
                  <td>{account.tier}</td>
                  <td>{account.groupName}</td>
                  <td>
                    <div className="load">
                      <meter
                        min={0}
                        max={account.capacity}
                        value={Math.min(account.load, account.capacity)}
                        aria-label={`Load of ${account.name}`}
                        aria-valuetext={`${account.load} of ${account.capacity}`}
                      />
                      <span className="load-text" data-testid="account-load">
                        {account.load} / {account.capacity}
                      </span>
                      {share >= 1 && <span className="muted"> full</span>}
                    </div>
                  </td>
                  <td className="wrap">
                    <span className={`status status-${status.tone}`} data-testid="account-status">
                      {status.label}
                    </span>
                    {status.timeLeft && (
                      <span className="cooldown" data-testid="account-cooldown">
                        {' '}
                        · back in{' '}
                        <span
                          data-testid="cooldown-left"
                          title={
                            account.cooldownUntil
                              ? formatDateTime(account.cooldownUntil)
                              : undefined
                          }
                        >
                          {status.timeLeft}
                        </span>
                      </span>
                    )}
                    {status.reason && (
                      <span className="status-reason" data-testid="account-reason">
                        {status.reason}
                      </span>
                    )}
                    {Object.hasOwn(tested, account.id) && (
                      <ConnectionTestNote result={tested[account.id]!} />
                    )}
                  </td>
                  <td>
                    <div className="actions">
                      {status.timeLeft && (
                        <button
                          type="button"
                          onClick={() => void act(account, { clearCooldown: true })}
                          disabled={busy === account.id}
                          aria-label={`End the cooldown of ${account.name} now`}
                          data-testid="account-clear-cooldown"
                        >
                          Retry now
                        </button>
                      )}
                      <button
                        type="button"
                        onClick={() => void testConnection(account)}
                        disabled={busy === account.id}
                        aria-label={`Test the connection of ${account.name}`}
                        data-testid="account-test"
                      >
                        Test connection
                      </button>
                      <button
                        type="button"
                        onClick={() => void act(account, { enabled: !account.enabled })}
                        disabled={busy === account.id}
                        aria-label={`${account.enabled ? 'Disable' : 'Enable'} ${account.name}`}
                        data-testid={account.enabled ? 'account-disable' : 'account-enable'}
                      >
                        {account.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <button
                        type="button"
                        onClick={() => setEditing(account)}
                        aria-label={`Edit ${account.name}`}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => setDeleting(account)}
                        aria-label={`Delete ${account.name}`}
                        data-testid="account-delete"
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {accounts.loaded && list.length === 0 && !accounts.error && (
          <p className="empty-state">No accounts yet.</p>
        )}
      </div>
      <p className="hint">
        Load and state refresh every {POLL_MS / 1000} seconds. An account that was refused with 429
        rests until its reset time, then serves again by itself.
      </p>

      {adding && (
        <AddAccountDialog
          onClose={() => setAdding(false)}
          onAdded={() => {
            setAdding(false);
            accounts.reload();
          }}
        />
      )}
      {editing && (
        <EditAccountDialog
          account={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            accounts.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete account “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete account"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await admin.deleteAccount(deleting.id);
          accounts.reload();
        }}
      >
        <p>
          Requests stop going to it at once, and its stored credentials are removed from the
          keychain. Its past usage stays in the log.
        </p>
      </ConfirmDialog>
    </Page>
  );
}

type ConnectionTestView = Pick<AccountTestResponse, 'ok' | 'detail' | 'latencyMs'>;

/** What the last "Test connection" of an account found, under its status. */
function ConnectionTestNote({ result }: { result: ConnectionTestView }) {
  return (
    <span
      className={`status-reason ${result.ok ? 'muted' : ''}`}
      data-testid="account-test-result"
      data-ok={String(result.ok)}
      role="status"
    >
      {result.ok
        ? `Connection works (${Math.round(result.latencyMs)} ms).`
        : `Connection failed: ${result.detail}`}
    </span>
  );
}
