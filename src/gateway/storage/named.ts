import type { SqlValue } from './engine';

/**
 * A query written with `@name` parameters (the usage filters build theirs clause by clause) as
 * the port's `?` placeholders and their values in order. A name used twice binds twice.
 */
export function bindNamed(
  sql: string,
  params: Readonly<Record<string, SqlValue>>,
): { sql: string; values: SqlValue[] } {
  const values: SqlValue[] = [];
  const positional = sql.replace(/@([A-Za-z_]\w*)/g, (_match, name: string) => {
    if (!Object.hasOwn(params, name)) throw new Error(`No value for the parameter @${name}`);
    values.push(params[name]!);
    return '?';
  });
  return { sql: positional, values };
}
