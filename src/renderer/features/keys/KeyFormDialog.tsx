import { useState } from 'react';
import type { KeyView } from '../../../shared/admin';
import { Dialog } from '../../components/Dialog';
import { CheckboxField } from '../../components/fields';
import { TextField } from '../../components/TextField';
import { errorInfo } from '../../lib/hooks';
import { admin, type GatewayErrorInfo } from '../../lib/gateway';
import { checkKeyForm, EMPTY_KEY_FORM, keyFormFrom, type KeyFormErrors } from './keyForm';

interface KeyFormDialogProps {
  /** The key to edit; null to create one. */
  editing: KeyView | null;
  onClose: () => void;
  /** Created: the plaintext comes with it, once. */
  onCreated: (key: string, record: KeyView) => void;
  onSaved: (record: KeyView) => void;
}

const FIELDS = ['name', 'group', 'concurrencyLimit'] as const;

/** Create a key, or change one's name, group, cap and ladder opt-in. */
export function KeyFormDialog({ editing, onClose, onCreated, onSaved }: KeyFormDialogProps) {
  const [values, setValues] = useState(() => (editing ? keyFormFrom(editing) : EMPTY_KEY_FORM));
  const [errors, setErrors] = useState<KeyFormErrors>({});
  const [failure, setFailure] = useState<GatewayErrorInfo | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<typeof values>) => setValues((v) => ({ ...v, ...patch }));

  const submit = async () => {
    const check = checkKeyForm(values);
    setFailure(null);
    if (!check.ok) {
      setErrors(check.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      if (editing) onSaved(await admin.updateKey(editing.id, check.body));
      else {
        const created = await admin.createKey(check.body);
        onCreated(created.key, created.record);
      }
    } catch (e) {
      const info = errorInfo(e);
      // A 400 names the field at fault: show it there.
      const field = FIELDS.find((f) => f === info.param);
      if (field) setErrors({ [field]: info.message });
      else setFailure(info);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      onClose={onClose}
      title={editing ? `Edit key “${editing.name}”` : 'Create a key'}
      testId="key-form"
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        noValidate
      >
        <TextField
          label="Name"
          value={values.name}
          onChange={(name) => set({ name })}
          hint="Who uses it: an app, a script, a person"
          error={errors.name}
          required
          autoFocus
          testId="key-name"
        />
        <TextField
          label="Group"
          value={values.group}
          onChange={(group) => set({ group })}
          hint="Which accounts serve it; empty means the default group"
          placeholder="default"
          error={errors.group}
          testId="key-group"
        />
        <TextField
          label="Concurrency cap"
          value={values.concurrencyLimit}
          onChange={(concurrencyLimit) => set({ concurrencyLimit })}
          hint="Requests this key may run at once; empty for no cap of its own"
          inputMode="numeric"
          error={errors.concurrencyLimit}
          testId="key-concurrency"
        />
        <CheckboxField
          label="Use the fallback ladder"
          checked={values.fallbackLadder}
          onChange={(fallbackLadder) => set({ fallbackLadder })}
          hint="When a size or quality cannot be delivered, step down instead of failing"
          testId="key-fallback"
        />
        {failure && (
          <p className="notice notice-error" role="alert" data-testid="key-form-error">
            {failure.message}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy} data-testid="key-submit">
            {busy ? 'Saving…' : editing ? 'Save' : 'Create key'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
