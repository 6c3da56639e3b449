import type { ReactNode } from 'react';

interface DialogFormProps {
  onSubmit: () => unknown;
  onCancel: () => void;
  busy: boolean;
  /** The submit button's label (say what is under way while `busy`). */
  submitLabel: string;
  submitTestId?: string;
  /** The form's own failure (field errors show on their fields). */
  failure?: string | null;
  failureTestId?: string;
  children: ReactNode;
}

/** A dialog's form: its fields, the failure notice, and Cancel and submit buttons. */
export function DialogForm(props: DialogFormProps) {
  const { onSubmit, onCancel, busy, submitLabel, submitTestId, failure, failureTestId } = props;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
      noValidate
    >
      {props.children}
      {failure && (
        <p className="notice notice-error" role="alert" data-testid={failureTestId}>
          {failure}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy} data-testid={submitTestId}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
