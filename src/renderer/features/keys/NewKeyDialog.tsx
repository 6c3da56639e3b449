import { CopyField } from '../../components/CopyField';
import { Dialog } from '../../components/Dialog';

interface NewKeyDialogProps {
  name: string;
  secret: string;
  onClose: () => void;
}

/** The one time a key's plaintext is shown: copy it now, Atelier keeps only a hash. */
export function NewKeyDialog({ name, secret, onClose }: NewKeyDialogProps) {
  return (
    <Dialog open onClose={onClose} title={`Key “${name}” created`} testId="new-key">
      <p className="warning-box" role="note">
        <strong>Copy this key now.</strong> It is shown only this once: Atelier keeps a hash of it,
        never the key. If you lose it, delete the key and create another.
      </p>
      <div data-testid="new-key-value">
        <CopyField label="Your new API key" value={secret} />
      </div>
      <p className="hint">
        Send it as <code>Authorization: Bearer …</code> to the address on the Server page.
      </p>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose} data-testid="new-key-done">
          I have copied it
        </button>
      </div>
    </Dialog>
  );
}
