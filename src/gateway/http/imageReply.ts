import type { Response } from 'express';
import type { TokenUsage } from '../../shared/imageParams';

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
  b64: Buffer;
  revisedPrompt: string | null;
}

/**
 * Writes the spec 2.1 body with each image's base64 bytes spliced in as they came from the
 * upstream. Base64 needs no JSON escaping, so the reply is built from small JSON fragments and
 * the untouched image buffers, with an exact Content-Length and no intermediate string.
 */
export function writeImagesJson(res: Response, meta: ImageReplyMeta, images: ReplyImage[]): void {
  const pieces: Buffer[] = [
    Buffer.from(
      `{"created":${meta.created},"background":${JSON.stringify(meta.background)},"data":[`,
    ),
  ];
  images.forEach((image, i) => {
    pieces.push(Buffer.from(`${i === 0 ? '' : ','}{"b64_json":"`), image.b64);
    pieces.push(
      Buffer.from(
        image.revisedPrompt === null
          ? '"}'
          : `","revised_prompt":${JSON.stringify(image.revisedPrompt)}}`,
      ),
    );
  });
  pieces.push(
    Buffer.from(
      `],"model":${JSON.stringify(meta.model)},"output_format":${JSON.stringify(meta.outputFormat)},` +
        `"quality":${JSON.stringify(meta.quality)},"size":${JSON.stringify(meta.size)},"usage":${JSON.stringify(meta.usage)}}`,
    ),
  );
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(length) });
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.end();
}

/** The JSON of an image stream event with the base64 spliced in; `fields` must not be empty. */
export function imageEventPieces(
  type: string,
  b64: Buffer,
  fields: Record<string, unknown>,
): Array<string | Buffer> {
  const rest = JSON.stringify(fields).slice(1);
  return [`{"type":${JSON.stringify(type)},"b64_json":"`, b64, `",${rest}`];
}
