/**
 * Reads JSON that carries megabytes of base64 without parsing the base64: the long string values
 * of the named keys are cut out (kept as zero-copy slices of the input), and only the small
 * remainder goes through JSON.parse. Base64 and data URLs contain no quotes or escapes, so the
 * end of such a value is simply the next `"`.
 */
export interface SplicedJson<T = unknown> {
  /** The parsed document with each cut value replaced by a marker string (see `markerIndex`). */
  value: T;
  /** The cut values, in document order. */
  strings: Buffer[];
}

const MARKER_PREFIX = '\u0000splice:';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export const DEFAULT_SPLICE_KEYS = [
  'b64_json',
  'result',
  'partial_image_b64',
  'image_url',
] as const;

/** Values shorter than this are left in place: cutting them saves nothing. */
const MIN_CUT_LENGTH = 256;

export function parseSplicedJson<T = unknown>(
  input: Buffer,
  keys: readonly string[] = DEFAULT_SPLICE_KEYS,
): SplicedJson<T> {
  const cuts = findCuts(input, keys);
  if (cuts.length === 0) return { value: JSON.parse(input.toString('utf8')) as T, strings: [] };
  const pieces: Buffer[] = [];
  const strings: Buffer[] = [];
  let pos = 0;
  for (const [start, end] of cuts) {
    pieces.push(
      input.subarray(pos, start),
      Buffer.from(JSON.stringify(MARKER_PREFIX + strings.length).slice(1, -1)),
    );
    strings.push(input.subarray(start, end));
    pos = end;
  }
  pieces.push(input.subarray(pos));
  return { value: JSON.parse(Buffer.concat(pieces).toString('utf8')) as T, strings };
}

/** The index of a cut value if `value` is its marker, else -1. */
export function markerIndex(value: unknown): number {
  if (typeof value !== 'string' || !value.startsWith(MARKER_PREFIX)) return -1;
  return Number(value.slice(MARKER_PREFIX.length));
}

/** Resolves a spliced value: the cut bytes for a marker, the string's bytes otherwise. */
export function splicedBytes(doc: SplicedJson, value: unknown): Buffer | null {
  const index = markerIndex(value);
  if (index >= 0) return doc.strings[index] ?? null;
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : null;
}

/**
 * Start/end offsets (inside the quotes) of long string values of the given keys, in one pass
 * that hops from string to string: a 35 MB value is skipped by one memchr-speed search for its
 * closing quote, however many keys are asked for.
 */
function findCuts(input: Buffer, keys: readonly string[]): Array<[number, number]> {
  const wanted = new Set(keys);
  const cuts: Array<[number, number]> = [];
  let pos = input.indexOf(QUOTE);
  while (pos >= 0) {
    const end = closingQuote(input, pos + 1);
    if (end < 0) break;
    let next = skipSpace(input, end + 1);
    if (input[next] === 0x3a /* : */ && wanted.has(input.toString('utf8', pos + 1, end))) {
      next = skipSpace(input, next + 1);
      if (input[next] === QUOTE) {
        const start = next + 1;
        const valueEnd = closingQuote(input, start);
        if (valueEnd < 0) break;
        // An escape inside means this is not plain base64 (e.g. an encoder that writes `\/`):
        // leave it for JSON.parse, which is correct, merely slower.
        if (
          valueEnd - start >= MIN_CUT_LENGTH &&
          !input.subarray(start, valueEnd).includes(BACKSLASH)
        ) {
          cuts.push([start, valueEnd]);
        }
        pos = input.indexOf(QUOTE, valueEnd + 1);
        continue;
      }
    }
    pos = input.indexOf(QUOTE, end + 1);
  }
  return cuts;
}

/** The offset of the quote closing a string whose content starts at `from`, escapes honoured. */
function closingQuote(input: Buffer, from: number): number {
  let at = input.indexOf(QUOTE, from);
  while (at >= 0) {
    let slashes = 0;
    for (let i = at - 1; i >= from && input[i] === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) return at;
    at = input.indexOf(QUOTE, at + 1);
  }
  return -1;
}

function skipSpace(input: Buffer, pos: number): number {
  let p = pos;
  while (p < input.length) {
    const c = input[p];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    p++;
  }
  return p;
}
