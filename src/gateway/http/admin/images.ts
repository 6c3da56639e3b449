import fs from 'node:fs/promises';
import path from 'node:path';
import { Router, type Response } from 'express';
import {
  imagesQuerySchema,
  patchImageBodySchema,
  type ImageDetail,
  type ImageRecord,
} from '../../../shared/admin';
import { contentTypeOf } from '../../gallery/files';
import type { ImageStore } from '../../gallery/store';
import type { ImagesRepository, StoredImage } from '../../gallery/repository';
import { notFound, parse } from './parse';

const DEFAULT_PAGE = 50;

export function imageView(image: StoredImage): ImageRecord {
  const { file: _file, thumb: _thumb, mask: _mask, ...record } = image;
  return record;
}

export interface ImagesAdminDeps {
  images: ImagesRepository;
  store: ImageStore;
}

/** /api/admin/images: the gallery, its files, favourites and deletion. */
export function imagesAdmin(deps: ImagesAdminDeps): Router {
  const router = Router();
  const existing = async (id: string) => {
    const image = await deps.images.get(id);
    if (!image) throw notFound('image');
    return image;
  };
  const abs = (rel: string) => path.join(deps.store.dir, ...rel.split('/'));

  router.get('/images', async (req, res) => {
    const { thumbs, ...query } = parse(imagesQuerySchema, req.query);
    const page = await deps.images.list({ ...query, limit: query.limit ?? DEFAULT_PAGE });
    const inline = thumbs ? await inlineThumbs(page.images.slice(0, thumbs), abs) : undefined;
    res.json({ images: page.images.map(imageView), nextBefore: page.nextBefore, thumbs: inline });
  });

  router.get('/images/:id', async (req, res) => {
    const image = await existing(req.params.id);
    const chain = await deps.images.chain(image.id);
    // What the whole lineage cost: its first generation and every edit made from it since.
    const root = chain.at(-1) ?? image;
    res.json({
      image: imageView(image),
      chain: chain.map(imageView),
      lineage: { rootId: root.id, ...(await deps.images.lineage(root.id)) },
    } satisfies ImageDetail);
  });

  router.get('/images/:id/file', async (req, res) => {
    await sendImageFile(res, abs((await existing(req.params.id)).file));
  });

  router.get('/images/:id/thumb', async (req, res) => {
    const image = await existing(req.params.id);
    const thumb = await deps.store.ensureThumb(image).catch((error: unknown) => {
      // The image's file is gone (removed by another instance of a team gateway, or by hand):
      // there is nothing to make its thumbnail from, which is a 404 like the file's own.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('image file');
      throw error;
    });
    await sendImageFile(res, thumb);
  });

  router.get('/images/:id/mask', async (req, res) => {
    const { mask } = await existing(req.params.id);
    if (!mask) throw notFound('mask: the image was not made by a masked edit');
    await sendImageFile(res, abs(mask));
  });

  router.patch('/images/:id', async (req, res) => {
    const body = parse(patchImageBodySchema, req.body);
    const { id } = await existing(req.params.id);
    if (body.favourite !== undefined) await deps.images.setFavourite(id, body.favourite);
    if (body.rejected !== undefined) await deps.images.setRejected(id, body.rejected);
    res.json({ image: imageView(await existing(id)) });
  });

  router.delete('/images/:id', async (req, res) => {
    if (!(await deps.store.remove(req.params.id))) throw notFound('image');
    res.json({ ok: true });
  });

  return router;
}

/** An image's bytes never change under its id: the browser may keep them for good. */
function sendImageFile(res: Response, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    res.sendFile(
      file,
      {
        cacheControl: false,
        lastModified: false,
        etag: false,
        headers: {
          'content-type': contentTypeOf(file),
          'cache-control': 'private, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        },
      },
      (error?: Error) => {
        // Once bytes are out, a failure (the caller left) can only end the response.
        if (!error || res.headersSent) resolve();
        else if ((error as NodeJS.ErrnoException).code === 'ENOENT') reject(notFound('image file'));
        else reject(error);
      },
    );
  });
}

/**
 * The thumbnails of a gallery's first screen, sent with its list: one request instead of two
 * dozen queued on the browser's six connections, which is what a first visit waited on
 * (docs/benchmarks.md, "What worked"). Only thumbnails already on disk: making one is
 * left to its own request, so a list never waits on an image decode.
 */
async function inlineThumbs(
  images: readonly StoredImage[],
  abs: (rel: string) => string,
): Promise<Record<string, string>> {
  const read = await Promise.all(
    images.map(async (image) => {
      if (!image.thumb) return null;
      const bytes = await fs.readFile(abs(image.thumb)).catch(() => null);
      return bytes ? ([image.id, bytes.toString('base64')] as const) : null;
    }),
  );
  return Object.fromEntries(read.filter((entry) => entry !== null));
}
