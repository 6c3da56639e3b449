import { useState } from 'react';
import type { AccountView, PatchAccountBody } from '../../../shared/admin';
import { Dialog } from '../../components/Dialog';
import { DialogForm } from '../../components/DialogForm';
import { TextField } from '../../components/TextField';
import { useFormSubmit, type FieldErrors } from '../../lib/formSubmit';
import { admin } from '../../lib/api/admin';

interface EditAccountDialogProps {
  account: AccountView;
  onClose: () => void;
  onSaved: (account: AccountView) => void;
}

const FIELDS = ['tier', 'group', 'capacity', 'maxPixels'] as const;
type Field = (typeof FIELDS)[number];

/** Tier, group, capacity and the largest image (in pixels) an account may be given. */
export function EditAccountDialog({ account, onClose, onSaved }: EditAccountDialogProps) {
  const [values, setValues] = useState<Record<Field, string>>({
    tier: account.tier,
    group: account.groupName,
    capacity: String(account.capacity),
    maxPixels: String(account.maxPixels),
  });
  const form = useFormSubmit(FIELDS);
  const { errors } = form;
  const set = (field: Field) => (value: string) => setValues((v) => ({ ...v, [field]: value }));

  const submit = () => {
    const problems: FieldErrors<Field> = {};
    const capacity = Number(values.capacity);
    const maxPixels = Number(values.maxPixels);
    if (!values.tier.trim()) problems.tier = 'A tier name, such as api or pro';
    if (!values.group.trim()) problems.group = 'A group name, such as default';
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 1000)
      problems.capacity = 'A whole number from 1 to 1000';
    if (!Number.isInteger(maxPixels) || maxPixels < 1)
      problems.maxPixels = 'A whole number of pixels, e.g. 8294400 for 3840x2160';
    if (Object.keys(problems).length > 0) return form.invalid(problems);
    const patch: PatchAccountBody = {
      tier: values.tier.trim(),
      group: values.group.trim(),
      capacity,
      maxPixels,
    };
    return form.submit(async () => onSaved(await admin.updateAccount(account.id, patch)));
  };

  return (
    <Dialog open onClose={onClose} title={`Edit account “${account.name}”`} testId="edit-account">
      <DialogForm
        onSubmit={submit}
        onCancel={onClose}
        busy={form.busy}
        submitLabel={form.busy ? 'Saving…' : 'Save'}
        failure={form.failure?.message}
      >
        <div className="form-grid">
          <TextField
            label="Priority"
            value={values.tier}
            onChange={set('tier')}
            hint="Tier: a higher one is chosen first for large images"
            error={errors.tier}
          />
          <TextField
            label="Group"
            value={values.group}
            onChange={set('group')}
            error={errors.group}
          />
          <TextField
            label="Images at once"
            value={values.capacity}
            onChange={set('capacity')}
            hint="Capacity in weight units: a 1024x1024 image weighs 1"
            inputMode="numeric"
            error={errors.capacity}
            testId="edit-account-capacity"
          />
          <TextField
            label="Largest image (pixels)"
            value={values.maxPixels}
            onChange={set('maxPixels')}
            inputMode="numeric"
            error={errors.maxPixels}
          />
        </div>
      </DialogForm>
    </Dialog>
  );
}
