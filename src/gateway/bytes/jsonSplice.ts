import { joinPieces, type Base64Pieces } from './base64Pieces';

/**
 * Reads JSON that carries megabytes of base64 without parsing the base64: the long string values
 * of the named keys are cut out (kept as zero-copy slices of the input), and only the small
 * remainder goes through JSON.parse. Base64 and data URLs contain no quotes or escapes, so the
 * end of such a value is simply the next `"`.
 */
export interface SplicedJson<T = unknown> {
  /** The parsed document with each cut value replaced by a marker string (see `markerIndex`). */
  value: T;
  /** The cut values, in document order, each in the pieces the input came in. */
  strings: Base64Pieces[];
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
  input: Buffer | Base64Pieces,
  keys: readonly string[] = DEFAULT_SPLICE_KEYS,
): SplicedJson<T> {
  const text = Buffer.isBuffer(input) ? new Pieces([input]) : new Pieces(input);
  const cuts = findCuts(text, keys);
  if (cuts.length === 0)
    return {
      value: JSON.parse(joinPieces(text.slice(0, text.length)).toString('utf8')) as T,
      strings: [],
    };
  const parts: Buffer[] = [];
  const strings: Base64Pieces[] = [];
  let pos = 0;
  for (const [start, end] of cuts) {
    parts.push(...text.slice(pos, start), Buffer.from(spliceMarkerText(strings.length)));
    strings.push(text.slice(start, end));
    pos = end;
  }
  parts.push(...text.slice(pos, text.length));
  return { value: JSON.parse(Buffer.concat(parts).toString('utf8')) as T, strings };
}

/**
 * The text that stands, inside a JSON string's quotes, for the cut value number `index`: for
 * readers that cut a value themselves while it streams and parse what is left as a SplicedJson.
 */
export function spliceMarkerText(index: number): string {
  return JSON.stringify(MARKER_PREFIX + index).slice(1, -1);
}

/** The index of a cut value if `value` is its marker, else -1. */
export function markerIndex(value: unknown): number {
  if (typeof value !== 'string' || !value.startsWith(MARKER_PREFIX)) return -1;
  return Number(value.slice(MARKER_PREFIX.length));
}

/** Resolves a spliced value: the cut pieces for a marker, the string's bytes otherwise. */
export function splicedPieces(doc: SplicedJson, value: unknown): Base64Pieces | null {
  const index = markerIndex(value);
  if (index >= 0) return doc.strings[index] ?? null;
  return typeof value === 'string' ? [Buffer.from(value, 'utf8')] : null;
}

/** `splicedPieces` as one buffer: for the small values (partial images) that want one. */
export function splicedBytes(doc: SplicedJson, value: unknown): Buffer | null {
  const pieces = splicedPieces(doc, value);
  return pieces ? joinPieces(pieces) : null;
}

/**
 * Text in pieces, read as if it were one buffer: the input of a 35 MB event arrives as hundreds
 * of socket reads, and joining them only to find the quotes would copy the image once more.
 */
class Pieces {
  readonly length: number;
  private readonly starts: number[] = [];
  constructor(private readonly parts: Base64Pieces) {
    let length = 0;
    for (const part of parts) {
      this.starts.push(length);
      length += part.length;
    }
    this.length = length;
  }

  /** The index of the piece holding `pos` (binary search: a 4K image is ~535 pieces). */
  private locate(pos: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  byteAt(pos: number): number | undefined {
    if (pos < 0 || pos >= this.length) return undefined;
    const i = this.locate(pos);
    return this.parts[i]![pos - this.starts[i]!];
  }

  indexOf(byte: number, from: number): number {
    if (from >= this.length) return -1;
    for (let i = this.locate(Math.max(0, from)); i < this.parts.length; i++) {
      const start = this.starts[i]!;
      const at = this.parts[i]!.indexOf(byte, Math.max(0, from - start));
      if (at >= 0) return start + at;
    }
    return -1;
  }

  /** The bytes in [start, end) as zero-copy subarrays of the pieces. */
  slice(start: number, end: number): Buffer[] {
    const out: Buffer[] = [];
    if (end <= start) return out;
    for (let i = this.locate(start); i < this.parts.length; i++) {
      const partStart = this.starts[i]!;
      const part = this.parts[i]!;
      if (partStart >= end) break;
      const from = Math.max(0, start - partStart);
      const to = Math.min(part.length, end - partStart);
      if (to > from) out.push(part.subarray(from, to));
    }
    return out;
  }

  includes(byte: number, start: number, end: number): boolean {
    const at = this.indexOf(byte, start);
    return at >= 0 && at < end;
  }

  text(start: number, end: number): string {
    return joinPieces(this.slice(start, end)).toString('utf8');
  }
}

/**
 * Start/end offsets (inside the quotes) of long string values of the given keys, in one pass
 * that hops from string to string: a 35 MB value is skipped by one memchr-speed search for its
 * closing quote, however many keys are asked for.
 */
function findCuts(input: Pieces, keys: readonly string[]): Array<[number, number]> {
  const wanted = new Set(keys);
  const cuts: Array<[number, number]> = [];
  let pos = input.indexOf(QUOTE, 0);
  while (pos >= 0) {
    const end = closingQuote(input, pos + 1);
    if (end < 0) break;
    let next = skipSpace(input, end + 1);
    if (
      input.byteAt(next) === 0x3a /* : */ &&
      end - pos <= MAX_KEY_LENGTH &&
      wanted.has(input.text(pos + 1, end))
    ) {
      next = skipSpace(input, next + 1);
      if (input.byteAt(next) === QUOTE) {
        const start = next + 1;
        const valueEnd = closingQuote(input, start);
        if (valueEnd < 0) break;
        // An escape inside means this is not plain base64 (e.g. an encoder that writes `\/`):
        // leave it for JSON.parse, which is correct, merely slower.
        if (valueEnd - start >= MIN_CUT_LENGTH && !input.includes(BACKSLASH, start, valueEnd)) {
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

/** Longer strings are not keys worth comparing (the splice keys are a few characters). */
const MAX_KEY_LENGTH = 64;

/** The offset of the quote closing a string whose content starts at `from`, escapes honoured. */
function closingQuote(input: Pieces, from: number): number {
  let at = input.indexOf(QUOTE, from);
  while (at >= 0) {
    let slashes = 0;
    for (let i = at - 1; i >= from && input.byteAt(i) === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) return at;
    at = input.indexOf(QUOTE, at + 1);
  }
  return -1;
}

function skipSpace(input: Pieces, pos: number): number {
  let p = pos;
  for (;;) {
    const c = input.byteAt(p);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return p;
    p++;
  }
}
