import { inspectBase64Head } from '../validation/imageInspect';
import { piecesLength, piecesPrefix } from './base64Pieces';
import { UpstreamError } from './errors';
import {
  outcomeFromImagesDoc,
  outcomeFromImagesJson,
  unreadableJson,
  type ImagesResponseShape,
} from './imagesJson';
import type { ImageOutcome, ImageSink, ImageStart } from './types';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const KEY = Buffer.from('"b64_json"', 'latin1');
/** Where `b64_json` must have begun by, or the body is not the shape this reader streams. */
const MAX_PREAMBLE = 1024 * 1024;
/** Header bytes tried first, and the most waited for before giving up on streaming. */
const FIRST_HEAD = 4 * 1024;
const MAX_HEAD = 1024 * 1024;

/**
 * Reads an Images API JSON body (API-key and native channels) as it arrives. The image's base64
 * is kept as the pieces the socket delivered, never joined; and once its header has shown the
 * size and format, `onImageStart` may take a sink and receive each piece the moment it arrives,
 * so the gateway's reply streams the image while the upstream is still sending it. Only the small
 * remainder of the body (before and after the image) is ever parsed.
 *
 * Anything unexpected (no `b64_json`, an escaped value, a header that never decides) falls back
 * to reading the whole body, which gives the same answers and errors as before, just later.
 */
export async function readImagesJson(
  body: AsyncIterable<Buffer | Uint8Array>,
  opts: { now: () => number; onImageStart?: ImageStart },
): Promise<ImageOutcome> {
  let preamble: Buffer = Buffer.alloc(0);
  let valueFrom = -1;
  const image: Buffer[] = [];
  const tail: Buffer[] = [];
  let phase: 'preamble' | 'image' | 'tail' = 'preamble';
  let escaped = false;
  let decided = opts.onImageStart === undefined;
  let nextHeadTry = FIRST_HEAD;
  let sink: ImageSink | null = null;

  const startIfKnown = async (done: boolean) => {
    const length = piecesLength(image);
    if (escaped || (!done && length < nextHeadTry)) return;
    const info = inspectBase64Head(piecesPrefix(image, Math.min(length, MAX_HEAD)));
    if (info === 'more' && !done && length < MAX_HEAD) {
      nextHeadTry = Math.min(length * 4, MAX_HEAD);
      return;
    }
    decided = true;
    if (info === null || info === 'more') return;
    sink = opts.onImageStart!({ info, created: createdOf(preamble) }) ?? null;
    if (sink) for (const piece of image) await sink.write(piece);
  };

  const takeImage = async (piece: Buffer): Promise<Buffer | null> => {
    const end = piece.indexOf(QUOTE);
    const text = end < 0 ? piece : piece.subarray(0, end);
    if (text.length > 0) {
      if (!escaped && text.includes(BACKSLASH)) escaped = true;
      if (!sink || sink.retain) image.push(text);
      if (sink) await sink.write(text);
      else if (!decided) await startIfKnown(end >= 0);
    }
    if (end < 0) return null;
    if (!decided) await startIfKnown(true);
    return piece.subarray(end);
  };

  for await (const chunk of body) {
    let piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (phase === 'preamble') {
      preamble = preamble.length === 0 ? piece : Buffer.concat([preamble, piece]);
      valueFrom = valueStart(preamble);
      if (valueFrom < 0) {
        if (preamble.length > MAX_PREAMBLE) phase = 'tail';
        continue;
      }
      piece = preamble.subarray(valueFrom);
      preamble = preamble.subarray(0, valueFrom);
      phase = 'image';
    }
    if (phase === 'image') {
      const rest = await takeImage(piece);
      if (rest === null) continue;
      phase = 'tail';
      piece = rest;
    }
    tail.push(piece);
  }

  if (valueFrom < 0) return outcomeFromImagesJson(Buffer.concat([preamble, ...tail]), opts.now);
  if (phase !== 'tail') {
    throw new UpstreamError({
      kind: 'bad_response',
      message: 'the upstream body ended inside the image data',
    });
  }
  // The image's place holds an empty string now: what is left is small JSON.
  let value: ImagesResponseShape;
  try {
    value = JSON.parse(Buffer.concat([preamble, ...tail]).toString('utf8')) as ImagesResponseShape;
  } catch {
    throw unreadableJson();
  }
  return outcomeFromImagesDoc(value, escaped ? [unescape(image)] : image, opts.now);
}

/**
 * The offset just inside the quote that opens the `b64_json` string, or -1 while the body has
 * not got that far (or the key holds something else, e.g. null).
 */
function valueStart(head: Buffer): number {
  let from = 0;
  for (;;) {
    const key = head.indexOf(KEY, from);
    if (key < 0) return -1;
    let at = skipSpace(head, key + KEY.length);
    if (at >= head.length) return -1;
    if (head[at] === 0x3a /* : */) {
      at = skipSpace(head, at + 1);
      if (at >= head.length) return -1;
      if (head[at] === QUOTE) return at + 1;
    }
    from = key + KEY.length;
  }
}

function skipSpace(b: Buffer, pos: number): number {
  let p = pos;
  while (p < b.length && (b[p] === 0x20 || b[p] === 0x0a || b[p] === 0x0d || b[p] === 0x09)) p++;
  return p;
}

/**
 * `created` from the part of the body before the image, if it came first (it does upstream).
 * The preamble is closed into valid JSON by completing the open string, arrays and objects.
 */
function createdOf(preamble: Buffer): number | null {
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
    const doc = JSON.parse(
      `${preamble.toString('utf8')}${inString ? '"' : ''}${closers.reverse().join('')}`,
    ) as { created?: unknown };
    return typeof doc.created === 'number' ? doc.created : null;
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
