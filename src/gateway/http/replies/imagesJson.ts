import type { Response } from 'express';
import type { ImageRunMeta } from '../../imageService/types';
import { writeWithBackpressure } from './backpressure';
import type { ReplyImage, ReplyMeta, StreamedImageTarget } from './types';

/*
 * The spec 2.1 body is built from small JSON fragments and the untouched base64 pieces: base64
 * needs no JSON escaping, so the image text goes out exactly as the upstream sent it, with no
 * intermediate string. Keys come in the upstream's order (`created`, `data`, then the rest), so
 * a reply can start before anything after the image is known.
 */

const head = (created: number) => `{"created":${created},"data":[`;
const itemOpen = (i: number) => `${i === 0 ? '' : ','}{"b64_json":"`;
const itemClose = (revisedPrompt: string | null) =>
  revisedPrompt === null ? '"}' : `","revised_prompt":${JSON.stringify(revisedPrompt)}}`;
const tail = (meta: ReplyMeta) =>
  `],"background":${JSON.stringify(meta.background)},"model":${JSON.stringify(meta.model)},` +
  `"output_format":${JSON.stringify(meta.outputFormat)},"quality":${JSON.stringify(meta.quality)},` +
  `"size":${JSON.stringify(meta.size)},"usage":${JSON.stringify(meta.usage)}}`;

/** The whole reply at once, with an exact Content-Length (n > 1, the ladder, lenient replies). */
export function writeImagesJson(res: Response, meta: ImageRunMeta, images: ReplyImage[]): void {
  const pieces: Buffer[] = [Buffer.from(head(meta.created))];
  images.forEach((image, i) => {
    pieces.push(
      Buffer.from(itemOpen(i)),
      ...image.b64,
      Buffer.from(itemClose(image.revisedPrompt)),
    );
  });
  pieces.push(Buffer.from(tail(meta)));
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(length) });
  // Uncorked before end(): on Node 24 an end() while corked loses writes still held by the cork.
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.uncork();
  res.end();
}

/**
 * A reply of one image that starts while the image is still arriving: the head goes out at
 * once, each base64 piece as the upstream delivers it (honouring the caller's backpressure), and
 * the rest when the upstream is done. Chunked: the length is not known in advance.
 */
export function startImagesJson(res: Response, now: () => number): StreamedImageTarget {
  return {
    open(start, retain) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(head(start.created ?? Math.floor(now() / 1000)) + itemOpen(0));
      return {
        sink: { write: (piece) => writeWithBackpressure(res, piece), retain },
        finish(meta, image) {
          res.end(itemClose(image.outcome.revisedPrompt) + tail(meta));
        },
      };
    },
  };
}
