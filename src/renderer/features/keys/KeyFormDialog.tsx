import { useState } from 'react';
import type { KeyView } from '../../../shared/admin';
import { Dialog } from '../../components/Dialog';
import { CheckboxField, SelectField } from '../../components/fields';
import { TextField } from '../../components/TextField';
import { DialogForm } from '../../components/DialogForm';
import { useFormSubmit } from '../../lib/formSubmit';
import { admin } from '../../lib/api/admin';
import {
  checkKeyForm,
  EMPTY_KEY_FORM,
  KEY_FORM_FIELDS,
  keyFormFrom,
  type BudgetPeriodChoice,
} from './keyForm';

interface KeyFormDialogProps {
  /** The key to edit; null to create one. */
  editing: KeyView | null;
  onClose: () => void;
  /** Created: the plaintext comes with it, once. */
  onCreated: (key: string, record: KeyView) => void;
  onSaved: (record: KeyView) => void;
}

const PERIODS: Array<{ value: BudgetPeriodChoice; label: string }> = [
  { value: 'day', label: 'per day' },
  { value: 'month', label: 'per month' },
  { value: 'total', label: 'in total' },
];

/** Create a key, or change one's name, group, cap, ladder opt-in and limits. */
export function KeyFormDialog({ editing, onClose, onCreated, onSaved }: KeyFormDialogProps) {
  const [values, setValues] = useState(() => (editing ? keyFormFrom(editing) : EMPTY_KEY_FORM));
  const form = useFormSubmit(KEY_FORM_FIELDS);
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
          label="Requests at once"
          value={values.concurrencyLimit}
          onChange={(concurrencyLimit) => set({ concurrencyLimit })}
          hint="Concurrency cap: requests this key may run at once; empty for no cap of its own"
          inputMode="numeric"
          error={errors.concurrencyLimit}
          testId="key-concurrency"
        />
        <CheckboxField
          label="Step down instead of failing"
          checked={values.fallbackLadder}
          onChange={(fallbackLadder) => set({ fallbackLadder })}
          hint="Fallback ladder: when a size or quality cannot be delivered, step down to the nearest one that can"
          testId="key-fallback"
        />
        <fieldset className="key-limits" data-testid="key-limits">
          <legend>Limits</legend>
          <p className="field-hint">
            Empty means no limit. A request that would pass one is refused before it is sent. Days
            and months are UTC.
          </p>
          <TextField
            label="Budget (USD)"
            value={values.budget}
            onChange={(budget) => set({ budget })}
            hint="Spend allowed, checked against each request's estimate"
            inputMode="decimal"
            placeholder="no budget"
            error={errors.budget}
            testId="key-budget"
          />
          <SelectField
            label="Budget period"
            value={values.budgetPeriod}
            options={PERIODS}
            onChange={(budgetPeriod) => set({ budgetPeriod })}
            disabled={!values.budget.trim()}
            testId="key-budget-period"
          />
          <TextField
            label="Requests per minute"
            value={values.rpmLimit}
            onChange={(rpmLimit) => set({ rpmLimit })}
            inputMode="numeric"
            placeholder="no limit"
            error={errors.rpmLimit}
            testId="key-rpm"
          />
          <TextField
            label="Images per day"
            value={values.imagesPerDay}
            onChange={(imagesPerDay) => set({ imagesPerDay })}
            inputMode="numeric"
            placeholder="no limit"
            error={errors.imagesPerDay}
            testId="key-images-per-day"
          />
          <TextField
            label="Expires on"
            type="date"
            value={values.expires}
            onChange={(expires) => set({ expires })}
            hint="The key stops working at the start of this day (UTC)"
            error={errors.expires}
            testId="key-expires"
          />
        </fieldset>
      </DialogForm>
    </Dialog>
  );
}
