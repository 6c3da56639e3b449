import { useId } from 'react';
import { CopyButton } from './CopyButton';

interface CopyFieldProps {
  label: string;
  value: string;
}

/** A read-only value with a visible label and a copy button. */
export function CopyField({ label, value }: CopyFieldProps) {
  const id = useId();
  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input id={id} readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={value} label={`Copy: ${label}`} />
      </div>
    </div>
  );
}
