import { useId } from 'react';
import { FieldShell } from '../../components/fields';
import type { ImageParams, ParamCheck } from './params';
import { nearestValidSize, sizeChecklist } from './sizeChecklist';

const WHOLE = /^\d{1,5}$/;

interface CustomSizeFieldProps {
  params: ImageParams;
  check: ParamCheck;
  onChange: (patch: Partial<ImageParams>) => void;
  /** The failing size rules' message (live), or the gateway's. */
  error: string | undefined;
}

/**
 * Width × height with every rule of spec 8.1 listed as it passes or fails while the person
 * types, each failing one named in the message, and the nearest size that passes them all.
 */
export function CustomSizeField({ params, check, onChange, error }: CustomSizeFieldProps) {
  const id = useId();
  const w = params.customWidth.trim();
  const h = params.customHeight.trim();
  const typed = WHOLE.test(w) && WHOLE.test(h) ? { width: Number(w), height: Number(h) } : null;
  const rows = typed ? sizeChecklist(typed.width, typed.height) : null;
  const nearest =
    typed && check.sizeRules.length > 0 ? nearestValidSize(typed.width, typed.height) : null;
  const errorId = `${id}-size-error`;
  const describedByIds = error ? `${id}-rules ${errorId}` : `${id}-rules`;
  return (
    <FieldShell
      id={`${id}-w`}
      label="Custom size in pixels (width × height)"
      error={null}
      className="custom-size"
    >
      <div className="size-inputs">
        <input
          id={`${id}-w`}
          inputMode="numeric"
          aria-label="Width in pixels"
          value={params.customWidth}
          onChange={(e) => onChange({ customWidth: e.target.value })}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedByIds}
          data-testid="size-width"
        />
        <span aria-hidden="true">×</span>
        <input
          inputMode="numeric"
          aria-label="Height in pixels"
          value={params.customHeight}
          onChange={(e) => onChange({ customHeight: e.target.value })}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedByIds}
          data-testid="size-height"
        />
        {check.size && check.sizeRule === null && (
          <span className="size-ok" data-testid="size-ok">
            ✓ {(check.dimensions!.width * check.dimensions!.height).toLocaleString('en-US')} px
          </span>
        )}
      </div>
      <ul
        className="size-rules"
        id={`${id}-rules`}
        aria-label="Size rules"
        data-testid="size-rules"
      >
        {(rows ?? sizeChecklist(0, 0)).map((row) => {
          const state = rows ? (row.ok ? 'pass' : 'fail') : 'unknown';
          return (
            <li key={row.row} data-testid="size-rule" data-row={row.row} data-state={state}>
              <span className="size-rule-mark" aria-hidden="true">
                {state === 'pass' ? '✓' : state === 'fail' ? '✗' : '·'}
              </span>{' '}
              {rows ? row.label : row.label.replace(/ \(now .*\)$/, '')}
              <span className="visually-hidden">
                {state === 'pass' ? ': passes' : state === 'fail' ? ': fails' : ''}
              </span>
            </li>
          );
        })}
      </ul>
      <p
        className="field-error"
        id={errorId}
        aria-live="polite"
        data-testid="size-error"
        data-rule={check.sizeRule ?? ''}
        data-rules={check.sizeRules.join(' ')}
      >
        {error ?? ''}
      </p>
      {nearest && (
        <button
          type="button"
          className="subtle size-nearest"
          onClick={() =>
            onChange({ customWidth: String(nearest.width), customHeight: String(nearest.height) })
          }
          data-testid="size-nearest"
        >
          Use the nearest valid size, {nearest.width} × {nearest.height}
        </button>
      )}
    </FieldShell>
  );
}
