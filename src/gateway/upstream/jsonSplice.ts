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

/** Start/end offsets (inside the quotes) of long string values of the given keys. */
function findCuts(input: Buffer, keys: readonly string[]): Array<[number, number]> {
  const cuts: Array<[number, number]> = [];
  for (const key of keys) {
    const needle = Buffer.from(`"${key}"`);
    let from = 0;
    for (;;) {
      const at = input.indexOf(needle, from);
      if (at < 0) break;
      from = at + needle.length;
      let p = skipSpace(input, from);
      if (input[p] !== 0x3a /* : */) continue;
      p = skipSpace(input, p + 1);
      if (input[p] !== QUOTE) continue;
      const start = p + 1;
      const end = input.indexOf(QUOTE, start);
      if (end < 0) break;
      from = end + 1;
      if (end - start < MIN_CUT_LENGTH) continue;
      // An escape inside means this is not plain base64 (e.g. an encoder that writes `\/`):
      // leave it for JSON.parse, which is correct, merely slower.
      if (input.subarray(start, end).includes(BACKSLASH)) continue;
      cuts.push([start, end]);
    }
  }
  return cuts.sort((a, b) => a[0] - b[0]);
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
