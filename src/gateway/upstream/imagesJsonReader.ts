import { UpstreamError } from '../core/upstreamError';
import {
  outcomeFromImagesDoc,
  outcomeFromImagesJson,
  unreadableJson,
  type ImagesResponseShape,
} from './imagesJson';
import { b64ValueStart, ImageValueReader, parsePreamble } from './imageValue';
import type { ImageOutcome, ImageStart } from './types';

/** Where `b64_json` must have begun by, or the body is not the shape this reader streams. */
const MAX_PREAMBLE = 1024 * 1024;

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
  const tail: Buffer[] = [];
  let phase: 'preamble' | 'image' | 'tail' = 'preamble';
  const onImageStart = opts.onImageStart;
  const image = new ImageValueReader(
    onImageStart &&
      ((info) => {
        const created = parsePreamble<ImagesResponseShape>(preamble)?.created;
        return onImageStart({ info, created: typeof created === 'number' ? created : null });
      }),
  );

  for await (const chunk of body) {
    let piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (phase === 'preamble') {
      preamble = preamble.length === 0 ? piece : Buffer.concat([preamble, piece]);
      valueFrom = b64ValueStart(preamble);
      if (valueFrom < 0) {
        if (preamble.length > MAX_PREAMBLE) phase = 'tail';
        continue;
      }
      piece = preamble.subarray(valueFrom);
      preamble = preamble.subarray(0, valueFrom);
      phase = 'image';
    }
    if (phase === 'image') {
      const rest = await image.take(piece);
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
  return outcomeFromImagesDoc(value, image.text(), opts.now);
}
