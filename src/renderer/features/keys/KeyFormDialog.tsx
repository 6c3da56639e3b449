import { useState } from 'react';
import type { KeyView } from '../../../shared/admin';
import { Dialog } from '../../components/Dialog';
import { CheckboxField } from '../../components/fields';
import { TextField } from '../../components/TextField';
import { DialogForm } from '../../components/DialogForm';
import { useFormSubmit } from '../../lib/formSubmit';
import { admin } from '../../lib/gateway';
import { checkKeyForm, EMPTY_KEY_FORM, keyFormFrom } from './keyForm';

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
  const form = useFormSubmit(FIELDS);
  const { errors } = form;
  const set = (patch: Partial<typeof values>) => setValues((v) => ({ ...v, ...patch }));

  const submit = () => {
    const check = checkKeyForm(values);
    if (!check.ok) return form.invalid(check.errors);
    return form.submit(async () => {
      if (editing) onSaved(await admin.updateKey(editing.id, check.body));
      else {
        const created = await admin.createKey(check.body);
        onCreated(created.key, created.record);
      }
    });
  };

  return (
    <Dialog
      open
      onClose={onClose}
      title={editing ? `Edit key “${editing.name}”` : 'Create a key'}
      testId="key-form"
    >
      <DialogForm
        onSubmit={submit}
        onCancel={onClose}
        busy={form.busy}
        submitLabel={form.busy ? 'Saving…' : editing ? 'Save' : 'Create key'}
        submitTestId="key-submit"
        failure={form.failure?.message}
        failureTestId="key-form-error"
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
      </DialogForm>
    </Dialog>
  );
}
