import type { ApiError } from '../core/errors';
import { invalidParam } from '../core/errors';
import { ERROR_CODES } from '../../shared/errors';

/**
 * Field readers shared by every request parser. Each one names the parameter and the expected type
 * in its 400, so a caller can fix the request from the message alone.
 */

/** OpenAI answers typos such as `quailty` with this code. */
export const UNKNOWN_PARAMETER = ERROR_CODES.unknownParameter;

/** SDKs send `X | null` for every optional field: explicit null means absent. */
export function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A 400 about the request as a whole (`param: null`). */
export { invalidRequest } from '../core/errors';

/** What a body that should have been a JSON object was, for messages. */
export function bodyKind(body: unknown): string {
  if (body === undefined) return 'no body';
  if (body === null) return 'null';
  if (Array.isArray(body)) return 'an array';
  return `a ${typeof body}`;
}

export function missingParam(param: string, message?: string): ApiError {
  return invalidParam(param, message ?? `${param} is required`, ERROR_CODES.missingParameter);
}

/** How a received value looks, for messages: `string "2"`, `number 2.5`, `array`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}...` : value;
    return `string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean')
    return `${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}

/**
 * Multipart fields are all strings, so numbers and booleans are coerced there only; a JSON body
 * must carry real types.
 */
export interface ReadMode {
  coerceStrings: boolean;
}

export function readString(value: unknown, param: string): string {
  if (typeof value !== 'string') {
    throw invalidParam(param, `${param} must be a string; got ${describeValue(value)}`);
  }
  return value;
}

export function readEnum<T extends string>(
  value: unknown,
  param: string,
  allowed: readonly T[],
): T {
  const text = readString(value, param);
  if (!(allowed as readonly string[]).includes(text)) {
    throw invalidParam(
      param,
      `${param} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}; got '${text}'`,
    );
  }
  return text as T;
}

const INTEGER_TEXT = /^[+-]?\d+$/;

export function readInteger(
  value: unknown,
  param: string,
  min: number,
  max: number,
  mode: ReadMode,
): number {
  let number: number | null = null;
  if (typeof value === 'number') number = value;
  else if (mode.coerceStrings && typeof value === 'string' && INTEGER_TEXT.test(value.trim())) {
    number = Number(value.trim());
  }
  const range = `an integer from ${min} to ${max}`;
  if (number === null) {
    const hint =
      typeof value === 'string' && !mode.coerceStrings ? ' (send a JSON number, not a string)' : '';
    throw invalidParam(param, `${param} must be ${range}; got ${describeValue(value)}${hint}`);
  }
  if (!Number.isInteger(number) || number < min || number > max) {
    throw invalidParam(param, `${param} must be ${range}; got ${String(number)}`);
  }
  return number;
}

export function readBoolean(value: unknown, param: string, mode: ReadMode): boolean {
  if (typeof value === 'boolean') return value;
  if (mode.coerceStrings && typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  const hint =
    typeof value === 'string' && !mode.coerceStrings
      ? ' (send JSON true or false, not a string)'
      : '';
  throw invalidParam(param, `${param} must be a boolean; got ${describeValue(value)}${hint}`);
}

/**
 * The number of code points in `text`, counted up to `max + 1` and no further: the answer is
 * exact up to `max` and `max + 1` means "over". A code point takes at most two UTF-16 units, so
 * a text over `2 * max` units is over without a look, and no more than `2 * max + 2` units are
 * ever read. Nothing is allocated (`[...text]` builds one array element per character).
 */
export function codePointsUpTo(text: string, max: number): number {
  if (text.length > 2 * max) return max + 1;
  let count = 0;
  for (let i = 0; i < text.length && count <= max; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point; a lone surrogate counts alone.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** The closest known name within two edits (or the snake_case form of a camelCase name). */
export function suggestName(name: string, known: readonly string[]): string | null {
  const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if (snake !== name && known.includes(snake)) return snake;
  let best: string | null = null;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

export function unknownParameter(name: string, known: readonly string[], where: string): ApiError {
  const suggestion = suggestName(name, known);
  const hint = suggestion ? ` Did you mean '${suggestion}'?` : '';
  return invalidParam(name, `Unknown parameter '${name}' for ${where}.${hint}`, UNKNOWN_PARAMETER);
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [];
    for (let j = 0; j <= b.length; j++) {
      if (i === 0 || j === 0) {
        row.push(i + j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
