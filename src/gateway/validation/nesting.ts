import { invalidParam } from '../core/errors';

/**
 * How deep a JSON value may nest. Real Responses inputs go five or six levels down (input, item,
 * content, part, ...); the limit leaves room for any client and still stops a body such as
 * `{"input": [[[[...]]]]}` a million levels deep, which would overflow the stack of every
 * recursive walk that follows (the filter's text reader, JSON.stringify on the way upstream).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Throws a 400 naming the top-level field whose value nests deeper than `maxDepth` (a field's own
 * value is depth 1). Walks with an explicit stack, so the check itself cannot overflow, and stops
 * at the first field that is too deep.
 */
export function checkNesting(body: Record<string, unknown>, maxDepth = MAX_JSON_DEPTH): void {
  for (const [field, value] of Object.entries(body)) {
    if (depthExceeds(value, maxDepth)) {
      throw invalidParam(
        field,
        `${field} is nested more than ${maxDepth} levels deep; flatten it (the limit stops bodies` +
          ' that would overflow the stack)',
      );
    }
  }
}

function depthExceeds(root: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) return true;
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
