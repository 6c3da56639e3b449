import { prototypeFreeTable } from '../../shared/ownProperty';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ERROR_CODES, ERROR_TYPES } from '../../shared/errors';
import { ApiError } from '../core/errors';
import { decodePieces, type Base64Pieces } from '../bytes/base64Pieces';
import { contentTypeOf, writeFileAtomic } from './files';

/** Like the hosted API's image URLs: valid for an hour. */
export const URL_LIFETIME_MS = 60 * 60_000;

/** Where the signed image URLs point, under the gateway's own address. */
export const URL_IMAGES_PATH = '/v1/images/files';

const EXTENSIONS = prototypeFreeTable({ png: 'png', jpeg: 'jpg', webp: 'webp' });
const NAME = /^url_[0-9a-f]{32}\.(png|jpg|webp)$/;

export interface PublishedImage {
  /** Path and query, to put after the gateway's origin. */
  path: string;
  expiresAt: number;
}

/** A published image's file, as its URL's reply needs it. */
export interface UrlImageFile {
  file: string;
  size: number;
  contentType: string;
  /** What is left of the URL's hour, in whole seconds. */
  maxAgeSeconds: number;
}

/**
 * Images answered as `response_format: "url"`. Each is written to its own file and reachable for
 * an hour through a URL whose token is the capability: a random name and an HMAC over the name and
 * the expiry. On the desktop the key lives only in this process's memory (so every URL dies with
 * the gateway, and nothing secret is stored). A team gateway's instances share one key through
 * their database (storage/sharedKeys.ts) and one folder: a URL one instance made is answered by
 * any, and its file outlives the instance that wrote it until its hour is over. There is no route
 * that lists these files, and a URL without a valid signature is answered exactly like a name that
 * does not exist.
 */
export interface UrlImages {
  publish(b64: Base64Pieces, format: string): Promise<PublishedImage>;
  /**
   * The file behind `GET {URL_IMAGES_PATH}/:name?expires=&signature=` (http/urlImages.ts serves
   * it); throws the 404 of an unknown or badly signed URL, the 410 of an expired one.
   */
  find(name: string, expires: unknown, signature: unknown): Promise<UrlImageFile>;
  /** Removes expired files; run on a timer and at close. */
  sweep(): Promise<void>;
  close(): Promise<void>;
  /** This run's folder (`<root>/<run id>`), made on the first publish. */
  readonly dir: string;
}

/**
 * timingSafeEqual throws on buffers of different byte lengths, and a query string can hold
 * multibyte characters whose string length matches while their byte length does not.
 */
function sameSignature(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A run is one start of a gateway; its files live in `<root>/<run id>`, apart from any other's. */
function newRunId(now: number): string {
  return `run_${now.toString(36)}_${randomBytes(6).toString('hex')}`;
}

export function createUrlImages(opts: {
  /** The `url-images` folder, shared by every gateway that runs on this data folder. */
  root: string;
  now: () => number;
  lifetimeMs?: number;
  /**
   * The signing key the instances of a team gateway share; omitted, a key of this run's own
   * (every URL dies with the run, whose folder goes at close).
   */
  sharedKey?: Buffer;
}): UrlImages {
  const key = opts.sharedKey ?? randomBytes(32);
  const shared = opts.sharedKey !== undefined;
  const lifetime = opts.lifetimeMs ?? URL_LIFETIME_MS;
  const runId = newRunId(opts.now());
  const dir = path.join(opts.root, runId);
  const expiries = new Map<string, number>();
  const sign = (name: string, expires: number) =>
    createHmac('sha256', key).update(`${name}\n${expires}`).digest('base64url');

  const sweep = async () => {
    const now = opts.now();
    for (const [name, expires] of expiries) {
      if (expires > now) continue;
      expiries.delete(name);
      await fsp.rm(path.join(dir, name), { force: true });
    }
    // Another gateway may share this data folder and still serve its own run's URLs: only what
    // has outlived every URL that can name it goes (a stopped or crashed run's files).
    await sweepOtherRuns(opts.root, runId, now - lifetime);
  };
  // What earlier runs left (a crash skips their close) goes once its URLs have expired.
  void sweep().catch(() => undefined);
  const timer = setInterval(() => void sweep().catch(() => undefined), 60_000);
  timer.unref();

  const gone = (status: 404 | 410, message: string) =>
    new ApiError(status, message, { type: ERROR_TYPES.notFound, code: ERROR_CODES.notFound });

  return {
    async publish(b64, format) {
      const name = `url_${randomBytes(16).toString('hex')}.${EXTENSIONS[format] ?? 'png'}`;
      const expiresAt = opts.now() + lifetime;
      const expires = Math.floor(expiresAt / 1000);
      await writeFileAtomic(path.join(dir, name), decodePieces(b64));
      expiries.set(name, expires * 1000);
      return {
        path: `${URL_IMAGES_PATH}/${name}?expires=${expires}&signature=${sign(name, expires)}`,
        expiresAt: expires * 1000,
      };
    },

    async find(name, expiresValue, signatureValue) {
      const expires = Number(expiresValue);
      const signature = typeof signatureValue === 'string' ? signatureValue : '';
      const expected = NAME.test(name) && Number.isInteger(expires) ? sign(name, expires) : null;
      if (expected === null || !sameSignature(signature, expected)) {
        throw gone(404, 'No image at this address.');
      }
      const left = expires * 1000 - opts.now();
      if (left <= 0) throw gone(410, 'This image URL has expired (image URLs last one hour).');
      // This run's file, or (a shared key) another instance's: a file appears under its name
      // only once it is complete (written aside, then renamed), so a half-written one is not
      // found yet, and a removed one is gone: never a 500.
      const found =
        (await fileOf(path.join(dir, name))) ?? (shared ? await otherRunsFile(name) : null);
      if (!found) {
        throw gone(410, 'This image is no longer kept (image URLs end when the gateway stops).');
      }
      const { file, size } = found;
      return {
        file,
        size,
        contentType: contentTypeOf(name),
        maxAgeSeconds: Math.floor(left / 1000),
      };
    },

    sweep,
    dir,

    async close() {
      clearInterval(timer);
      // A shared key outlives this run: its URLs are still answered by the other instances, and
      // their sweep removes its files once the URLs have expired.
      if (shared) return;
      // This run's key dies with it, so none of its URLs can be answered again: its folder goes,
      // and only its own.
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };

  /** The file named `name` in another run's folder under the root, if one has it. */
  async function otherRunsFile(name: string): Promise<{ file: string; size: number } | null> {
    const entries = await fsp.readdir(opts.root, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === runId) continue;
      const found = await fileOf(path.join(opts.root, entry.name, name));
      if (found) return found;
    }
    return null;
  }
}

async function fileOf(file: string): Promise<{ file: string; size: number } | null> {
  const stat = await fsp.stat(file).catch(() => null);
  return stat?.isFile() ? { file, size: stat.size } : null;
}

/**
 * Removes, under `root`, the files of other runs written before `writtenBefore`: a URL lasts
 * its lifetime from its file's writing, so no URL can name them any more. A run's folder goes
 * once it is empty (a live run that publishes again makes it anew, see writeFileAtomic).
 */
async function sweepOtherRuns(root: string, ownRun: string, writtenBefore: number): Promise<void> {
  const entries = await fsp.readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.name === ownRun) continue;
    const full = path.join(root, entry.name);
    if (!entry.isDirectory()) {
      // A file of the layout before runs had folders.
      await removeIfWrittenBefore(full, writtenBefore);
      continue;
    }
    const files = await fsp.readdir(full).catch(() => []);
    for (const file of files) await removeIfWrittenBefore(path.join(full, file), writtenBefore);
    // Fails while the folder still holds a live file, or one being written: then it stays.
    await fsp.rmdir(full).catch(() => undefined);
  }
}

async function removeIfWrittenBefore(file: string, writtenBefore: number): Promise<void> {
  const stat = await fsp.stat(file).catch(() => null);
  if (stat && stat.mtimeMs < writtenBefore) await fsp.rm(file, { force: true });
}
