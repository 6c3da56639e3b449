import { useId, type ReactNode } from 'react';

/** aria-describedby for a control with an optional hint and error. */
export function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length > 0 ? ids.join(' ') : undefined;
}

interface FieldShellProps {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null | undefined;
  children: ReactNode;
  className?: string;
  /** The label sits beside the control (checkboxes, switches). */
  inline?: boolean;
}

/** Label, control, hint and error, wired for screen readers. */
export function FieldShell({
  id,
  label,
  hint,
  error,
  children,
  className,
  inline,
}: FieldShellProps) {
  return (
    <div
      className={`field ${inline ? 'field-inline' : ''} ${error ? 'field-invalid' : ''} ${className ?? ''}`}
    >
      {inline ? (
        <>
          {children}
          <label htmlFor={id}>{label}</label>
        </>
      ) : (
        <>
          <label htmlFor={id}>{label}</label>
          {children}
        </>
      )}
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <p className="field-error" id={`${id}-error`} aria-live="polite">
        {error ?? ''}
      </p>
    </div>
  );
}

export interface Option<T extends string> {
  value: T;
  label: string;
}

interface SelectFieldProps<T extends string> {
  label: string;
  value: T;
  options: ReadonlyArray<Option<T>>;
  onChange: (value: T) => void;
  hint?: ReactNode;
  error?: string | null | undefined;
  disabled?: boolean;
  testId?: string;
}

export function SelectField<T extends string>({
  label,
  value,
  options,
  onChange,
  hint,
  error,
  disabled,
  testId,
}: SelectFieldProps<T>) {
  const id = useId();
  return (
    <FieldShell id={id} label={label} hint={hint} error={error}>
      <select
        id={id}
        value={value}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        data-testid={testId}
        onChange={(e) => onChange(e.target.value as T)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

interface RangeFieldProps {
  label: string;
  value: number;
  min: number;
  max: number;
  step?: number;
  onChange: (value: number) => void;
  /** Shown after the label, e.g. "64 px". */
  display?: string;
  hint?: ReactNode;
  error?: string | null | undefined;
  disabled?: boolean;
  testId?: string;
}

/** A slider with its value shown; arrow keys move it one step. */
export function RangeField({
  label,
  value,
  min,
  max,
  step = 1,
  onChange,
  display,
  hint,
  error,
  disabled,
  testId,
}: RangeFieldProps) {
  const id = useId();
  return (
    <FieldShell
      id={id}
      label={
        <>
          {label} <output htmlFor={id}>{display ?? value}</output>
        </>
      }
      hint={hint}
      error={error}
      className="field-range"
    >
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        disabled={disabled}
        aria-valuetext={display}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        data-testid={testId}
        onChange={(e) => onChange(Number(e.target.value))}
      />
    </FieldShell>
  );
}

interface CheckboxFieldProps {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
  disabled?: boolean;
  testId?: string;
}

export function CheckboxField({
  label,
  checked,
  onChange,
  hint,
  disabled,
  testId,
}: CheckboxFieldProps) {
  const id = useId();
  return (
    <FieldShell id={id} label={label} hint={hint} inline>
      <input
        id={id}
        type="checkbox"
        role="switch"
        checked={checked}
        disabled={disabled}
        aria-describedby={describedBy(id, hint, null)}
        data-testid={testId}
        onChange={(e) => onChange(e.target.checked)}
      />
    </FieldShell>
  );
}

interface SegmentedProps<T extends string> {
  label: string;
  value: T;
  options: ReadonlyArray<Option<T>>;
  onChange: (value: T) => void;
  hint?: ReactNode;
  disabled?: boolean;
  testId?: string;
  /** Hide the legend visually (it stays for screen readers). */
  hideLabel?: boolean;
}

/** A radio group drawn as joined buttons; arrow keys move between options. */
export function Segmented<T extends string>({
  label,
  value,
  options,
  onChange,
  hint,
  disabled,
  testId,
  hideLabel,
}: SegmentedProps<T>) {
  const name = useId();
  return (
    <fieldset className="segmented-field" disabled={disabled} data-testid={testId}>
      <legend className={hideLabel ? 'visually-hidden' : undefined}>{label}</legend>
      <div className="segmented">
        {options.map((o) => (
          <label key={o.value} className={o.value === value ? 'selected' : undefined}>
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={o.value === value}
              onChange={() => onChange(o.value)}
            />
            <span>{o.label}</span>
          </label>
        ))}
      </div>
      {hint && <p className="field-hint">{hint}</p>}
    </fieldset>
  );
}
