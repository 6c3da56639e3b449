import fs from 'node:fs';
import type { Request, Response } from 'express';
import type { UrlImages } from '../gallery/urlImages';

/** GET {URL_IMAGES_PATH}/:name?expires=&signature=: the signed URL is the credential. */
export function serveUrlImage(images: UrlImages) {
  return async (req: Request, res: Response): Promise<void> => {
    const found = await images.find(
      String(req.params.name ?? ''),
      req.query.expires,
      req.query.signature,
    );
    res.writeHead(200, {
      'content-type': found.contentType,
      'content-length': String(found.size),
      'cache-control': `private, max-age=${found.maxAgeSeconds}`,
    });
    const stream = fs.createReadStream(found.file);
    await new Promise<void>((resolve) => {
      stream.on('error', () => {
        res.destroy();
        resolve();
      });
      res.on('close', () => {
        stream.destroy();
        resolve();
      });
      stream.pipe(res);
    });
  };
}
