import {
  USAGE_FIELDS,
  type StoredUsage,
  type UsageField,
  type UsageFieldKind,
} from '../../shared/usageRecord';
import type { SqlValue } from '../storage/engine';

/**
 * The SQL side of the usage record, derived from its one field list (shared/usageRecord.ts):
 * each field is a column of the same name in snake_case, integers are rounded and clamped (STRICT
 * INTEGER columns reject fractions and huge numbers, and no field may cost the record), booleans
 * are 0/1.
 */
export const FIELDS = Object.keys(USAGE_FIELDS) as UsageField[];

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export const COLUMNS = Object.fromEntries(FIELDS.map((f) => [f, snake(f)])) as Record<
  UsageField,
  string
>;

const fieldsOf = (kind: UsageFieldKind) =>
  FIELDS.filter((f) => (USAGE_FIELDS[f] as UsageFieldKind) === kind);
const INTEGER_FIELDS = fieldsOf('int');
const BOOLEAN_FIELDS = fieldsOf('bool');
const TEXT_FIELDS = [...fieldsOf('text'), ...fieldsOf('textOrNull')];

/** Whatever a field holds, a value an INTEGER column takes: the record must never be lost to it. */
function integer(value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return 0;
  return Math.min(Math.max(Math.round(value), Number.MIN_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
}

/**
 * A column as SQL names it: quoted, because `user` is a reserved word on PostgreSQL (both engines
 * read a double-quoted identifier as a name).
 */
export const COLUMN_SQL = Object.fromEntries(FIELDS.map((f) => [f, `"${COLUMNS[f]}"`])) as Record<
  UsageField,
  string
>;

/**
 * `SELECT` list: every column under its field name (plus the row id). The aliases are quoted so
 * PostgreSQL keeps their case.
 */
export const SELECT_FIELDS = `id, ${FIELDS.map((f) => `${COLUMN_SQL[f]} AS "${f}"`).join(', ')}`;

/** A record's INSERT parameters, in FIELDS order; a missing nullable field is NULL. */
export function toValues(record: StoredUsage): SqlValue[] {
  const params = toParams(record);
  return FIELDS.map((f) => params[f] as SqlValue);
}

/** A record's named parameters for an INSERT; a missing nullable field is NULL, not an error. */
export function toParams(record: StoredUsage): Record<UsageField, unknown> {
  const params = Object.fromEntries(
    FIELDS.map((f) => [f, (record[f] as unknown) ?? null]),
  ) as Record<UsageField, unknown>;
  for (const f of INTEGER_FIELDS) params[f] = integer(params[f]);
  for (const f of BOOLEAN_FIELDS) params[f] = params[f] ? 1 : 0;
  for (const f of TEXT_FIELDS) {
    const value = params[f];
    if (value !== null && typeof value !== 'string') params[f] = String(value);
  }
  return params;
}

/** A row as either engine returns it, back to a record. */
export function fromRow<T extends object>(row: T): T {
  const record = { ...row } as Record<string, unknown>;
  for (const f of BOOLEAN_FIELDS) record[f] = record[f] === 1;
  return record as T;
}
