import { useState } from 'react';
import type { AccountView } from '../../../shared/admin';
import { CopyField } from '../../components/CopyField';
import { Dialog } from '../../components/Dialog';
import { DialogForm } from '../../components/DialogForm';
import { Segmented } from '../../components/fields';
import { TextField } from '../../components/TextField';
import { openSignIn } from '../../lib/desktop';
import { useFormSubmit } from '../../lib/formSubmit';
import { admin } from '../../lib/api/admin';
import { errorInfo, useInterval } from '../../lib/hooks';
import {
  checkAccountForm,
  EMPTY_ACCOUNT_FORM,
  type AccountFormField,
  type AddKind,
} from './accountForm';

interface AddAccountDialogProps {
  onClose: () => void;
  onAdded: (account: AccountView) => void;
}

const KINDS = [
  { value: 'api_key', label: 'API key' },
  { value: 'login', label: 'Sign in' },
  { value: 'simulator', label: 'Simulator' },
] as const;

const FIELDS: readonly AccountFormField[] = [
  'name',
  'tier',
  'group',
  'capacity',
  'baseUrl',
  'apiKey',
  'issuer',
];

type Login =
  | { phase: 'waiting'; loginId: string; authorizeUrl: string }
  | { phase: 'failed'; message: string }
  | null;

/**
 * Add an upstream account: an API key (sent straight to the gateway, which keeps it in the OS
 * keychain), a subscription sign-in (OAuth in the browser, the gateway receives the tokens), or
 * a simulated account for trying things out offline.
 */
export function AddAccountDialog({ onClose, onAdded }: AddAccountDialogProps) {
  const [kind, setKind] = useState<AddKind>('api_key');
  const [values, setValues] = useState(EMPTY_ACCOUNT_FORM);
  const form = useFormSubmit(FIELDS);
  const { errors } = form;
  const [login, setLogin] = useState<Login>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  const set = (patch: Partial<typeof values>) => setValues((v) => ({ ...v, ...patch }));

  useInterval(
    () => {
      if (login?.phase !== 'waiting') return;
      admin.accountLogin(login.loginId).then(
        (state) => {
          if (state.state === 'done' && state.account) onAdded(state.account);
          else if (state.state === 'failed')
            setLogin({ phase: 'failed', message: state.error ?? 'The sign-in failed.' });
        },
        (e: unknown) => setLogin({ phase: 'failed', message: errorInfo(e).message }),
      );
    },
    1500,
    login?.phase === 'waiting',
  );

  // Where no browser opens, the waiting panel shows the address to open by hand: say so there.
  const openBrowser = (started: { loginId: string; authorizeUrl: string }) =>
    openSignIn(started.loginId, started.authorizeUrl).catch((e: unknown) =>
      setOpenError(errorInfo(e).message),
    );

  const submit = () => {
    const check = checkAccountForm(kind, values);
    if (!check.ok) return form.invalid(check.errors);
    const { request } = check;
    return form.submit(async () => {
      if (request.kind === 'login') {
        const started = await admin.startAccountLogin(request.body);
        setLogin({ phase: 'waiting', ...started });
        void openBrowser(started);
      } else {
        const account = await admin.addAccount(request.body);
        // The key has reached the gateway (and its keychain): forget it here.
        set({ apiKey: '' });
        onAdded(account);
      }
    });
  };

  const close = () => {
    set({ apiKey: '' });
    onClose();
  };

  return (
    <Dialog open onClose={close} title="Add an account" testId="add-account" wide>
      {login ? (
        <div className="login-flow" data-testid="login-flow" data-phase={login.phase}>
          {login.phase === 'waiting' ? (
            <>
              <p role="status">
                <span className="spinner" aria-hidden="true" />
                Finish signing in in your browser. This window notices when you are done.
              </p>
              {openError && (
                <p className="notice notice-error" data-testid="sign-in-open-error">
                  The browser could not be opened: {openError}
                </p>
              )}
              <p className="hint">If no browser window opened, open this address yourself:</p>
              <CopyField label="Sign-in address" value={login.authorizeUrl} />
              <button
                type="button"
                className="subtle"
                onClick={() => {
                  setOpenError(null);
                  void openBrowser(login);
                }}
                data-testid="sign-in-open"
              >
                Open the sign-in page
              </button>
            </>
          ) : (
            <p className="notice notice-error" role="alert">
              {login.message}
            </p>
          )}
          <div className="dialog-actions">
            {login.phase === 'failed' && (
              <button type="button" onClick={() => setLogin(null)}>
                Back
              </button>
            )}
            <button type="button" onClick={close}>
              {login.phase === 'waiting' ? 'Cancel' : 'Close'}
            </button>
          </div>
        </div>
      ) : (
        <DialogForm
          onSubmit={submit}
          onCancel={close}
          busy={form.busy}
          submitLabel={form.busy ? 'Working…' : kind === 'login' ? 'Sign in' : 'Add account'}
          submitTestId="account-submit"
          failure={form.failure?.message}
          failureTestId="add-account-error"
        >
          <Segmented
            label="Kind of account"
            value={kind}
            options={KINDS}
            onChange={(k) => {
              setKind(k);
              form.reset();
            }}
            testId="account-kind"
          />
          <p className="hint">
            {kind === 'api_key' &&
              'An OpenAI-compatible provider reached with an API key. The key goes straight to the gateway, which keeps it in your system keychain; the studio never stores it.'}
            {kind === 'login' &&
              'A subscription account: sign in with your browser, and the gateway keeps the tokens in your system keychain.'}
            {kind === 'simulator' &&
              'An offline account served by the built-in simulator: real images and token counts, no network. Useful to try routing, cooldowns and limits.'}
          </p>
          <div className="form-grid">
            <TextField
              label="Name"
              value={values.name}
              onChange={(name) => set({ name })}
              error={errors.name}
              required
              autoFocus
              testId="account-name"
            />
            {kind === 'api_key' && (
              <>
                <TextField
                  label="Base URL"
                  value={values.baseUrl}
                  onChange={(baseUrl) => set({ baseUrl })}
                  inputMode="url"
                  placeholder="https://api.example.com/v1"
                  error={errors.baseUrl}
                  testId="account-base-url"
                />
                <TextField
                  label="API key"
                  value={values.apiKey}
                  onChange={(apiKey) => set({ apiKey })}
                  secret
                  error={errors.apiKey}
                  hint="Sent once to the gateway; never shown again"
                  testId="account-api-key"
                />
              </>
            )}
            {kind === 'login' && (
              <>
                <TextField
                  label="Sign-in issuer"
                  value={values.issuer}
                  onChange={(issuer) => set({ issuer })}
                  inputMode="url"
                  hint="Leave empty for the default"
                  error={errors.issuer}
                  testId="account-issuer"
                />
                <TextField
                  label="Backend URL"
                  value={values.baseUrl}
                  onChange={(baseUrl) => set({ baseUrl })}
                  inputMode="url"
                  hint="Leave empty for the default"
                  error={errors.baseUrl}
                  testId="account-backend-url"
                />
              </>
            )}
            {/* Routing comes after what the account is: the engineer's word is in each hint. */}
            {kind !== 'login' && (
              <TextField
                label="Priority"
                value={values.tier}
                onChange={(tier) => set({ tier })}
                placeholder="api"
                hint="Tier: a higher one is chosen first for large images"
                error={errors.tier}
                testId="account-tier"
              />
            )}
            <TextField
              label="Group"
              value={values.group}
              onChange={(group) => set({ group })}
              placeholder="default"
              hint="It serves the keys of this group"
              error={errors.group}
              testId="account-group"
            />
            <TextField
              label="Images at once"
              value={values.capacity}
              onChange={(capacity) => set({ capacity })}
              inputMode="numeric"
              hint="Capacity in weight units: a 1024x1024 image weighs 1"
              error={errors.capacity}
              testId="account-capacity"
            />
          </div>
        </DialogForm>
      )}
    </Dialog>
  );
}
