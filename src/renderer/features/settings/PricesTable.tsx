import { useState } from 'react';
import { describeModel } from '../../../shared/models';
import type { PriceView, PutPriceBody } from '../../../shared/admin';
import { formatDateTime } from '../../lib/format';
import { admin } from '../../lib/api/admin';
import { errorInfo } from '../../lib/hooks';

const COLUMNS = [
  { field: 'textInput', label: 'Text in' },
  { field: 'imageInput', label: 'Image in' },
  { field: 'textOutput', label: 'Text out' },
  { field: 'imageOutput', label: 'Image out' },
] as const;

type PriceField = (typeof COLUMNS)[number]['field'];
type Row = Record<PriceField, string>;
type RowErrors = Partial<Record<PriceField | 'model', string>>;

const DOLLARS = /^\d+(\.\d{1,6})?$/;

interface PricesTableProps {
  prices: PriceView[];
  onSaved: (prices: PriceView[]) => void;
}

/** Dollars per 1M tokens per model; a change prices the next request (past ones keep theirs). */
export function PricesTable({ prices, onSaved }: PricesTableProps) {
  const [edits, setEdits] = useState<Record<string, Row>>({});
  const [errors, setErrors] = useState<Record<string, RowErrors>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [adding, setAdding] = useState<Row & { model: string }>({
    model: '',
    textInput: '',
    imageInput: '',
    textOutput: '',
    imageOutput: '',
  });

  const rowOf = (p: PriceView): Row => edits[p.model] ?? p;
  const edit = (model: string, base: Row, field: PriceField, value: string) =>
    setEdits((e) => ({ ...e, [model]: { ...base, ...e[model], [field]: value } }));

  const save = async (model: string, body: PutPriceBody, isNew: boolean) => {
    const problems: RowErrors = {};
    if (isNew && !model.trim()) problems.model = 'Name the model';
    for (const { field } of COLUMNS) {
      const value = body[field];
      if (value !== undefined && !DOLLARS.test(value))
        problems[field] = 'Dollars per 1M tokens, e.g. 1.25';
    }
    setErrors((e) => ({ ...e, [isNew ? '' : model]: problems }));
    if (Object.keys(problems).length > 0) return;
    setBusy(model);
    try {
      onSaved(await admin.setPrice(model.trim(), body));
      if (isNew)
        setAdding({ model: '', textInput: '', imageInput: '', textOutput: '', imageOutput: '' });
      else
        setEdits((e) => {
          const { [model]: _saved, ...rest } = e;
          return rest;
        });
    } catch (e) {
      const info = errorInfo(e);
      const field = (info.param ?? 'model') as PriceField | 'model';
      setErrors((all) => ({ ...all, [isNew ? '' : model]: { [field]: info.message } }));
    } finally {
      setBusy(null);
    }
  };

  const changed = (p: PriceView): PutPriceBody => {
    const row = rowOf(p);
    const body: PutPriceBody = {};
    for (const { field } of COLUMNS) if (row[field] !== p[field]) body[field] = row[field].trim();
    return body;
  };

  return (
    <div className="table-wrap">
      <table className="data-table prices-table" data-testid="prices-table">
        <caption>Dollars per 1M tokens</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            {COLUMNS.map((c) => (
              <th key={c.field} scope="col">
                {c.label}
              </th>
            ))}
            <th scope="col">Updated</th>
            <th scope="col">
              <span className="visually-hidden">Save</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {prices.map((p) => {
            const row = rowOf(p);
            const body = changed(p);
            const rowErrors = errors[p.model] ?? {};
            return (
              <tr key={p.model} data-testid="price-row" data-model={p.model}>
                <th scope="row" title={describeModel(p.model) ?? undefined}>
                  <span className="mono">{p.model}</span>
                  {describeModel(p.model) && (
                    <span className="price-model-note muted" data-testid="model-description">
                      {describeModel(p.model)}
                    </span>
                  )}
                </th>
                {COLUMNS.map(({ field, label }) => (
                  <td key={field}>
                    <PriceInput
                      label={`${label} price of ${p.model}`}
                      value={row[field]}
                      error={rowErrors[field]}
                      onChange={(v) => edit(p.model, p, field, v)}
                      testId={`price-${field}`}
                    />
                  </td>
                ))}
                <td className="muted">{formatDateTime(p.updatedAt)}</td>
                <td>
                  <button
                    type="button"
                    disabled={Object.keys(body).length === 0 || busy === p.model}
                    onClick={() => void save(p.model, body, false)}
                    data-testid="price-save"
                  >
                    Save
                  </button>
                  {rowErrors.model && (
                    <span className="field-error" role="alert">
                      {rowErrors.model}
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
          <tr data-testid="price-new">
            <td>
              <PriceInput
                label="New model name"
                value={adding.model}
                error={errors['']?.model}
                onChange={(model) => setAdding((a) => ({ ...a, model }))}
                placeholder="model name"
                mono
              />
            </td>
            {COLUMNS.map(({ field, label }) => (
              <td key={field}>
                <PriceInput
                  label={`${label} price of the new model`}
                  value={adding[field]}
                  error={errors['']?.[field]}
                  onChange={(v) => setAdding((a) => ({ ...a, [field]: v }))}
                  placeholder="0.00"
                />
              </td>
            ))}
            <td />
            <td>
              <button
                type="button"
                disabled={busy !== null}
                onClick={() => {
                  const { model, ...row } = adding;
                  void save(model, row, true);
                }}
              >
                Add
              </button>
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

function PriceInput(props: {
  label: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
  placeholder?: string;
  mono?: boolean;
  testId?: string;
}) {
  return (
    <div className={`price-cell ${props.error ? 'field-invalid' : ''}`}>
      <input
        aria-label={props.label}
        value={props.value}
        placeholder={props.placeholder}
        inputMode={props.mono ? 'text' : 'decimal'}
        className={props.mono ? 'mono' : undefined}
        aria-invalid={props.error ? true : undefined}
        onChange={(e) => props.onChange(e.target.value)}
        data-testid={props.testId}
      />
      {props.error && (
        <span className="field-error" role="alert">
          {props.error}
        </span>
      )}
    </div>
  );
}
