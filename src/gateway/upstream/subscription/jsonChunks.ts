import type { OutgoingBody } from '../sendPost';
import { randomBytes } from 'node:crypto';
import { encodePieces } from '../../bytes/base64Pieces';
import { markerIndex, type SplicedJson } from '../../bytes/jsonSplice';

/**
 * A JSON string value given as bytes (base64, or a data URL) that are spliced into the serialised
 * document instead of going through JSON.stringify: images are megabytes, and a string copy per
 * step adds up. The bytes must need no JSON escaping (base64 and data-URL prefixes do not).
 */
export class RawString {
  constructor(readonly parts: readonly Buffer[]) {}
}

export type JsonChunks = OutgoingBody;

const MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/** `data:image/png;base64,...` for an image's bytes, encoded in pieces (see encodePieces). */
export function dataUrl(image: { bytes: Buffer; format: keyof typeof MIME }): RawString {
  return new RawString([
    Buffer.from(`data:${MIME[image.format]};base64,`, 'latin1'),
    ...encodePieces(image.bytes),
  ]);
}

/** Serialises `value` to JSON bytes as a list of chunks, RawStrings spliced in as they are. */
export function serialiseJson(value: unknown): JsonChunks {
  // A random tag no real text can collide with marks where each raw string goes.
  const tag = `atelier-raw-${randomBytes(8).toString('hex')}-`;
  const raws: RawString[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof RawString)) return v;
    raws.push(v);
    return `${tag}${raws.length - 1}`;
  });
  const chunks: Buffer[] = [];
  const pattern = new RegExp(`${tag}(\\d+)`, 'g');
  let pos = 0;
  for (const match of text.matchAll(pattern)) {
    chunks.push(Buffer.from(text.slice(pos, match.index), 'utf8'));
    chunks.push(...raws[Number(match[1])]!.parts);
    pos = match.index + match[0].length;
  }
  chunks.push(Buffer.from(text.slice(pos), 'utf8'));
  const nonEmpty = chunks.filter((chunk) => chunk.length > 0);
  return { chunks: nonEmpty, length: nonEmpty.reduce((sum, chunk) => sum + chunk.length, 0) };
}

export function joinChunks(body: JsonChunks): Buffer {
  return body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks, body.length);
}

/** Replaces the cut-out markers of a spliced document by RawStrings of the original bytes. */
export function resolveSpliced(doc: SplicedJson, value: unknown): unknown {
  if (typeof value === 'string') {
    const index = markerIndex(value);
    return index >= 0 && doc.strings[index] ? new RawString(doc.strings[index]) : value;
  }
  if (Array.isArray(value)) return value.map((item) => resolveSpliced(doc, item));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveSpliced(doc, item)]),
    );
  }
  return value;
}
