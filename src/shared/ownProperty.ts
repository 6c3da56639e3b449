/**
 * A table's value under a key that came from outside (a request, a stored account, a file name),
 * read from the table's own properties only: `constructor`, `toString` or `__proto__` are
 * properties of every plain object, and must read as "not in the table", never as a function.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * A lookup table without a prototype, for the hot paths that index it per character or per
 * token: a missing key is `undefined`, whatever its name, with no check on each read.
 */
export function prototypeFreeTable<T>(
  entries: Readonly<Record<string, T>>,
): Readonly<Record<string, T>> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
