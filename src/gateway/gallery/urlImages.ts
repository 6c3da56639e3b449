import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Request, Response } from 'express';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';
import { decodePieces, type Base64Pieces } from '../bytes/base64Pieces';
import { contentTypeOf, writeFileAtomic } from './files';

/** Like the hosted API's image URLs: valid for an hour. */
export const URL_LIFETIME_MS = 60 * 60_000;

/** Where the signed image URLs point, under the gateway's own address. */
export const URL_IMAGES_PATH = '/v1/images/files';

const EXTENSIONS: Record<string, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };
const NAME = /^url_[0-9a-f]{32}\.(png|jpg|webp)$/;

export interface PublishedImage {
  /** Path and query, to put after the gateway's origin. */
  path: string;
  expiresAt: number;
}

/**
 * Images answered as `response_format: "url"`. Each is written to its own file and reachable for
 * an hour through a URL whose token is the capability: a random name and an HMAC over the name and
 * the expiry, under a key that lives only in this process's memory (so every URL dies with the
 * gateway, and nothing secret is stored). There is no route that lists these files, and a URL
 * without a valid signature is answered exactly like a name that does not exist.
 */
export interface UrlImages {
  publish(b64: Base64Pieces, format: string): Promise<PublishedImage>;
  /** GET {URL_IMAGES_PATH}/:name?expires=&signature= */
  serve(req: Request, res: Response): Promise<void>;
  /** Removes expired files; run on a timer and at close. */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

export function createUrlImages(opts: {
  dir: string;
  now: () => number;
  lifetimeMs?: number;
}): UrlImages {
  const key = randomBytes(32);
  const lifetime = opts.lifetimeMs ?? URL_LIFETIME_MS;
  const expiries = new Map<string, number>();
  const sign = (name: string, expires: number) =>
    createHmac('sha256', key).update(`${name}\n${expires}`).digest('base64url');

  // Files left by an earlier run are unreachable (their key is gone): clear them at once.
  fs.rmSync(opts.dir, { recursive: true, force: true });

  const sweep = async () => {
    const now = opts.now();
    for (const [name, expires] of expiries) {
      if (expires > now) continue;
      expiries.delete(name);
      await fsp.rm(path.join(opts.dir, name), { force: true });
    }
  };
  const timer = setInterval(() => void sweep().catch(() => undefined), 60_000);
  timer.unref();

  const gone = (status: 404 | 410, message: string) =>
    new ApiError(status, message, { type: ERROR_TYPES.notFound, code: ERROR_CODES.notFound });

  return {
    async publish(b64, format) {
      const name = `url_${randomBytes(16).toString('hex')}.${EXTENSIONS[format] ?? 'png'}`;
      const expiresAt = opts.now() + lifetime;
      const expires = Math.floor(expiresAt / 1000);
      await writeFileAtomic(path.join(opts.dir, name), decodePieces(b64));
      expiries.set(name, expires * 1000);
      return {
        path: `${URL_IMAGES_PATH}/${name}?expires=${expires}&signature=${sign(name, expires)}`,
        expiresAt: expires * 1000,
      };
    },

    async serve(req, res) {
      const name = String(req.params.name ?? '');
      const expires = Number(req.query.expires);
      const signature = typeof req.query.signature === 'string' ? req.query.signature : '';
      const expected = NAME.test(name) && Number.isInteger(expires) ? sign(name, expires) : null;
      if (
        expected === null ||
        signature.length !== expected.length ||
        !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
      ) {
        throw gone(404, 'No image at this address.');
      }
      const left = expires * 1000 - opts.now();
      if (left <= 0) throw gone(410, 'This image URL has expired (image URLs last one hour).');
      const file = path.join(opts.dir, name);
      let size: number;
      try {
        size = (await fsp.stat(file)).size;
      } catch {
        throw gone(410, 'This image is no longer kept (image URLs end when the gateway stops).');
      }
      res.writeHead(200, {
        'content-type': contentTypeOf(name),
        'content-length': String(size),
        'cache-control': `private, max-age=${Math.floor(left / 1000)}`,
      });
      const stream = fs.createReadStream(file);
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
    },

    sweep,

    async close() {
      clearInterval(timer);
      await fsp.rm(opts.dir, { recursive: true, force: true });
    },
  };
}
