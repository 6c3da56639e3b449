import type { Response } from 'express';
import type { TokenUsage } from '../../../shared/imageParams';
import type { DeliveredImage } from '../../dispatch/runImages';
import type { Base64Pieces } from '../../upstream/base64Pieces';
import { writeWithBackpressure } from './backpressure';
import type { StreamedImageTarget } from './passThrough';
import type { SseWriter } from './sse';

export interface ImageReplyMeta {
  created: number;
  background: string;
  model: string;
  outputFormat: string;
  quality: string;
  size: string;
  usage: TokenUsage;
}

export interface ReplyImage {
  b64: Base64Pieces;
  revisedPrompt: string | null;
}

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
const tail = (meta: Omit<ImageReplyMeta, 'created'>) =>
  `],"background":${JSON.stringify(meta.background)},"model":${JSON.stringify(meta.model)},` +
  `"output_format":${JSON.stringify(meta.outputFormat)},"quality":${JSON.stringify(meta.quality)},` +
  `"size":${JSON.stringify(meta.size)},"usage":${JSON.stringify(meta.usage)}}`;

/** The whole reply at once, with an exact Content-Length (n > 1, the ladder, lenient replies). */
export function writeImagesJson(res: Response, meta: ImageReplyMeta, images: ReplyImage[]): void {
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

/**
 * The `*.completed` event of an image stream, started while the image is still arriving, the same
 * way: its JSON is `imageEventPieces`' with every field after the image, so they can wait until
 * the upstream is done.
 */
export function startImageEvent(
  sse: SseWriter,
  type: string,
  fields: (image: DeliveredImage) => Record<string, unknown>,
): StreamedImageTarget {
  return {
    open(_start, retain) {
      const event = sse.begin(type, `{"type":${JSON.stringify(type)},"b64_json":"`);
      return {
        sink: { write: (piece) => event.write(piece), retain },
        finish(_meta, image) {
          event.end(`",${JSON.stringify(fields(image)).slice(1)}`);
        },
      };
    },
  };
}

/** The JSON of an image stream event with the base64 spliced in; `fields` must not be empty. */
export function imageEventPieces(
  type: string,
  b64: Base64Pieces,
  fields: Record<string, unknown>,
): Array<string | Buffer> {
  const rest = JSON.stringify(fields).slice(1);
  return [`{"type":${JSON.stringify(type)},"b64_json":"`, ...b64, `",${rest}`];
}
