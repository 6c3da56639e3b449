/**
 * `?` placeholders (SQLite's, and the port's) as PostgreSQL's `$1, $2, ...`. A `?` inside a string
 * literal, a quoted identifier or a comment is text, not a placeholder, and stays as it is.
 */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      // A quote is escaped by doubling it, so the literal ends at the first lone closing quote.
      let j = i + 1;
      while (j < sql.length && !(sql[j] === c && sql[j + 1] !== c)) j += sql[j] === c ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const j = end === -1 ? sql.length : end;
      out += sql.slice(i, j);
      i = j;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const j = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, j);
      i = j;
    } else if (c === '?') {
      out += `$${++n}`;
      i += 1;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}
