import { inspectBase64Head, type ImageInfo } from '../bytes/imageInspect';
import { piecesLength, piecesPrefix, type Base64Pieces } from '../bytes/base64Pieces';
import { unreadableJson } from './imagesJson';
import type { ImageSink } from './types';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const B64_JSON_KEY = Buffer.from('"b64_json"', 'latin1');
/** Header bytes tried first, and the most waited for before giving up on streaming. */
const FIRST_HEAD = 4 * 1024;
const MAX_HEAD = 1024 * 1024;

/**
 * The base64 string of an image inside JSON that arrives in pieces (an Images API body, a
 * streamed `*.completed` event). Its text is kept in the pieces the socket delivered, never
 * joined; once the image's header has shown the size and format, `offer` may return a sink that
 * receives every piece the moment it arrives, so the gateway's reply streams the image while the
 * upstream is still sending it.
 *
 * An escaped value (`\/`, which some encoders write) is never offered: it is decoded as JSON at
 * the end instead.
 */
export class ImageValueReader {
  private readonly kept: Buffer[] = [];
  private escaped = false;
  private decided: boolean;
  private nextHeadTry = FIRST_HEAD;
  private sink: ImageSink | null = null;

  constructor(private readonly offer?: (info: ImageInfo) => ImageSink | null) {
    this.decided = offer === undefined;
  }

  /**
   * Takes the next bytes of the value (the first call's start just inside its opening quote).
   * Resolves to what follows the closing quote once it has come, or null while the value goes
   * on. A sink's backpressure is waited for before it resolves.
   */
  async take(piece: Buffer): Promise<Buffer | null> {
    const end = piece.indexOf(QUOTE);
    const text = end < 0 ? piece : piece.subarray(0, end);
    if (text.length > 0) {
      if (!this.escaped && text.includes(BACKSLASH)) this.escaped = true;
      if (!this.sink || this.sink.retain) this.kept.push(text);
      if (this.sink) await this.sink.write(text);
      else if (!this.decided) await this.offerIfKnown(end >= 0);
    }
    if (end < 0) return null;
    if (!this.decided) await this.offerIfKnown(true);
    return piece.subarray(end);
  }

  /** The value's text, as pieces (only the first ones when a sink took it and let them go). */
  text(): Base64Pieces {
    return this.escaped ? [unescape(this.kept)] : this.kept;
  }

  private async offerIfKnown(done: boolean): Promise<void> {
    const length = piecesLength(this.kept);
    if (this.escaped || (!done && length < this.nextHeadTry)) return;
    const info = inspectBase64Head(piecesPrefix(this.kept, Math.min(length, MAX_HEAD)));
    if (info === 'more' && !done && length < MAX_HEAD) {
      this.nextHeadTry = Math.min(length * 4, MAX_HEAD);
      return;
    }
    this.decided = true;
    if (info === null || info === 'more') return;
    this.sink = this.offer!(info);
    if (this.sink) for (const piece of this.kept) await this.sink.write(piece);
  }
}

/**
 * The offset just inside the quote that opens the `b64_json` string (or the string of another
 * key, given quoted as `key`), or -1 while `head` has not got that far (or the key holds
 * something else, e.g. null).
 */
export function b64ValueStart(head: Buffer, key: Buffer = B64_JSON_KEY): number {
  let from = 0;
  for (;;) {
    const found = head.indexOf(key, from);
    if (found < 0) return -1;
    let at = skipSpace(head, found + key.length);
    if (at >= head.length) return -1;
    if (head[at] === 0x3a /* : */) {
      at = skipSpace(head, at + 1);
      if (at >= head.length) return -1;
      if (head[at] === QUOTE) return at + 1;
    }
    from = found + key.length;
  }
}

function skipSpace(b: Buffer, pos: number): number {
  let p = pos;
  while (p < b.length && (b[p] === 0x20 || b[p] === 0x0a || b[p] === 0x0d || b[p] === 0x09)) p++;
  return p;
}

/**
 * The JSON before an image's value closed into a valid document, by completing the open string,
 * arrays and objects; null if even that does not parse. Fields that came before the image (the
 * upstream puts `created` and `type` there) can be read before the image has arrived.
 */
export function parsePreamble<T>(preamble: Buffer): Partial<T> | null {
  const closers: string[] = [];
  let inString = false;
  for (let i = 0; i < preamble.length; i++) {
    const c = preamble[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x7b /* { */) closers.push('}');
    else if (c === 0x5b /* [ */) closers.push(']');
    else if (c === 0x7d || c === 0x5d) closers.pop();
  }
  try {
    return JSON.parse(
      `${preamble.toString('utf8')}${inString ? '"' : ''}${closers.reverse().join('')}`,
    ) as Partial<T>;
  } catch {
    return null;
  }
}

/** An encoder that escapes `/` as `\/` is rare; its value is decoded as JSON, correctly. */
function unescape(pieces: Buffer[]): Buffer {
  try {
    return Buffer.from(
      JSON.parse(`"${Buffer.concat(pieces).toString('latin1')}"`) as string,
      'latin1',
    );
  } catch {
    throw unreadableJson();
  }
}
