import { randomBytes } from 'node:crypto';

/**
 * JSON bodies as bytes, with long strings (base64 images) spliced in rather than serialised.
 *
 * `JSON.stringify` of a 35 MB base64 string scans it for escapes, builds a second 35 MB string,
 * and writing that string to a socket converts it to UTF-8 once more: about 0.4 s of CPU per 4K
 * reply here, which made the "instant upstream" of the benchmark anything but instant. Base64 needs
 * no escaping and is one byte per character, so its bytes can be copied straight into a Buffer
 * (a memcpy) and placed between the small serialised remainder. The text on the wire is exactly
 * what `JSON.stringify` would have produced for strings that need no escaping; any other string
 * goes through `JSON.stringify` as before.
 */

/** Strings at least this long are considered for splicing; shorter ones are not worth it. */
const SPLICE_FROM = 64 * 1024;
/** No JSON escape is needed for these (the base64 alphabet, plus `-` and `_` of base64url). */
const PLAIN = /^[A-Za-z0-9+/=_-]*$/;
/**
 * A marker the serialiser cannot produce from a caller's data: JSON escapes the control
 * character, so its escaped form, followed by a per-process nonce, only appears where it was put.
 */
const NONCE = randomBytes(8).toString('hex');
const MARK = `\u0001${NONCE}:`;
const MARK_JSON = JSON.stringify(MARK).slice(1, -1);

/**
 * Latin-1 bytes of strings served again and again (the noise cache's images): they are neither
 * checked nor copied per reply. The noise cache registers and forgets its entries.
 */
const known = new Map<string, Buffer>();

export function rememberSpliced(text: string): void {
  if (text.length >= SPLICE_FROM && PLAIN.test(text)) known.set(text, Buffer.from(text, 'latin1'));
}

export function forgetSpliced(text: string): void {
  known.delete(text);
}

/** The string's bytes when it can be spliced in, else null. */
function splicedBytes(text: string): Buffer | null {
  if (text.length < SPLICE_FROM) return null;
  return known.get(text) ?? (PLAIN.test(text) ? Buffer.from(text, 'latin1') : null);
}

/** The JSON text of `value` as Buffers, long plain strings copied in as bytes. */
export function jsonPieces(value: unknown): Buffer[] {
  const spliced: Buffer[] = [];
  const text = JSON.stringify(value, (_key, field: unknown) => {
    const bytes = typeof field === 'string' ? splicedBytes(field) : null;
    if (!bytes) return field;
    spliced.push(bytes);
    return `${MARK}${spliced.length - 1}`;
  });
  if (spliced.length === 0) return [Buffer.from(text)];
  const pieces: Buffer[] = [];
  let from = 0;
  for (;;) {
    const at = text.indexOf(MARK_JSON, from);
    if (at < 0) break;
    const indexFrom = at + MARK_JSON.length;
    const indexEnd = text.indexOf('"', indexFrom);
    pieces.push(Buffer.from(text.slice(from, at)));
    pieces.push(spliced[Number(text.slice(indexFrom, indexEnd))]!);
    from = indexEnd;
  }
  pieces.push(Buffer.from(text.slice(from)));
  return pieces;
}

export function piecesByteLength(pieces: readonly Buffer[]): number {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return length;
}
