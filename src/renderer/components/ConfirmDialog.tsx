import { useState, type ReactNode } from 'react';
import { Dialog } from './Dialog';
import { errorInfo } from '../lib/hooks';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** May fail: the message stays in the dialog and the person can try again or cancel. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  testId?: string;
}

/** "Are you sure?" for what cannot be undone (delete a key, an account, an image). */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  testId = 'confirm-dialog',
}: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setError(null);
    onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      close();
    } catch (e) {
      setError(errorInfo(e).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={close} title={title} testId={testId}>
      <div className="confirm-body">{children}</div>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={close} disabled={busy}>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => void confirm()}
          disabled={busy}
          data-testid="confirm"
        >
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
