import { useState } from 'react';
import type { AccountView, PatchAccountBody } from '../../../shared/admin';
import { Dialog } from '../../components/Dialog';
import { TextField } from '../../components/TextField';
import { admin } from '../../lib/gateway';
import { errorInfo } from '../../lib/hooks';

interface EditAccountDialogProps {
  account: AccountView;
  onClose: () => void;
  onSaved: (account: AccountView) => void;
}

type Field = 'tier' | 'group' | 'capacity' | 'maxPixels';

/** Tier, group, capacity and the largest image (in pixels) an account may be given. */
export function EditAccountDialog({ account, onClose, onSaved }: EditAccountDialogProps) {
  const [values, setValues] = useState<Record<Field, string>>({
    tier: account.tier,
    group: account.groupName,
    capacity: String(account.capacity),
    maxPixels: String(account.maxPixels),
  });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (field: Field) => (value: string) => setValues((v) => ({ ...v, [field]: value }));

  const submit = async () => {
    const problems: Partial<Record<Field, string>> = {};
    const capacity = Number(values.capacity);
    const maxPixels = Number(values.maxPixels);
    if (!values.tier.trim()) problems.tier = 'A tier name, such as api or pro';
    if (!values.group.trim()) problems.group = 'A group name, such as default';
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 1000)
      problems.capacity = 'A whole number from 1 to 1000';
    if (!Number.isInteger(maxPixels) || maxPixels < 1)
      problems.maxPixels = 'A whole number of pixels, e.g. 8294400 for 3840x2160';
    setErrors(problems);
    setFailure(null);
    if (Object.keys(problems).length > 0) return;
    const patch: PatchAccountBody = {
      tier: values.tier.trim(),
      group: values.group.trim(),
      capacity,
      maxPixels,
    };
    setBusy(true);
    try {
      onSaved(await admin.updateAccount(account.id, patch));
    } catch (e) {
      const info = errorInfo(e);
      const field = (['tier', 'group', 'capacity', 'maxPixels'] as const).find(
        (f) => f === info.param,
      );
      if (field) setErrors({ [field]: info.message });
      else setFailure(info.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open onClose={onClose} title={`Edit account “${account.name}”`} testId="edit-account">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        noValidate
      >
        <div className="form-grid">
          <TextField label="Tier" value={values.tier} onChange={set('tier')} error={errors.tier} />
          <TextField
            label="Group"
            value={values.group}
            onChange={set('group')}
            error={errors.group}
          />
          <TextField
            label="Capacity"
            value={values.capacity}
            onChange={set('capacity')}
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
        {failure && (
          <p className="notice notice-error" role="alert">
            {failure}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
