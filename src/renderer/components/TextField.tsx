import { useId, type HTMLInputTypeAttribute, type ReactNode } from 'react';
import { describedBy, FieldShell } from './fields';

interface TextFieldProps {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  type?: HTMLInputTypeAttribute;
  hint?: ReactNode;
  /** Shown under the field and announced (e.g. the message of a 400 whose `param` names it). */
  error?: string | null | undefined;
  placeholder?: string;
  required?: boolean;
  disabled?: boolean;
  inputMode?: 'text' | 'numeric' | 'decimal' | 'url';
  autoFocus?: boolean;
  /** Passwords and keys: the browser must not offer to remember them. */
  secret?: boolean;
  testId?: string;
  className?: string;
}

/** A labelled text input with its hint and error wired for screen readers. */
export function TextField({
  label,
  value,
  onChange,
  type = 'text',
  hint,
  error,
  placeholder,
  required,
  disabled,
  inputMode,
  autoFocus,
  secret,
  testId,
  className,
}: TextFieldProps) {
  const id = useId();
  return (
    <FieldShell id={id} label={label} hint={hint} error={error} className={className}>
      <input
        id={id}
        type={secret ? 'password' : type}
        value={value}
        placeholder={placeholder}
        required={required}
        disabled={disabled}
        inputMode={inputMode}
        autoFocus={autoFocus}
        autoComplete={secret ? 'new-password' : 'off'}
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        data-testid={testId}
        onChange={(e) => onChange(e.target.value)}
      />
    </FieldShell>
  );
}
