import { prototypeFreeTable } from '../../shared/ownProperty';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';

/** The longest side of a gallery thumbnail. */
export const THUMB_SIZE = 256;

const EXTENSIONS = prototypeFreeTable({ png: 'png', jpeg: 'jpg', webp: 'webp' });
const CONTENT_TYPES = prototypeFreeTable({
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
});

export function newImageId(): string {
  return `img_${randomBytes(10).toString('hex')}`;
}

/**
 * Where an image's files go, relative to the images folder: `YYYY/MM/<id>.<ext>` by the local
 * date it was made, with `<id>.thumb.webp` and `<id>.mask.<ext>` beside it. Forward slashes in
 * the database on every platform.
 */
export function imagePaths(id: string, createdAt: number, format: string, maskFormat?: string) {
  const date = new Date(createdAt);
  const folder = `${date.getFullYear()}/${String(date.getMonth() + 1).padStart(2, '0')}`;
  return {
    file: `${folder}/${id}.${EXTENSIONS[format] ?? format}`,
    thumb: `${folder}/${id}.thumb.webp`,
    mask: maskFormat ? `${folder}/${id}.mask.${EXTENSIONS[maskFormat] ?? maskFormat}` : null,
  };
}

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).slice(1).toLowerCase()] ?? 'application/octet-stream';
}

const knownDirs = new Set<string>();

export async function ensureDir(dir: string): Promise<void> {
  // Folders are per month: asking the kernel to create one per image is wasted system calls.
  if (knownDirs.has(dir)) return;
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  knownDirs.add(dir);
}

/**
 * Writes through a temporary name and renames, so a crash never leaves a half-written file
 * under the name the database points to.
 */
export async function writeFileAtomic(file: string, bytes: Buffer): Promise<void> {
  const dir = path.dirname(file);
  await ensureDir(dir);
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temp, bytes, { mode: 0o600 }).catch(async (error: unknown) => {
      // The folder went away under us (deleted by hand): make it again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      await fs.writeFile(temp, bytes, { mode: 0o600 });
    });
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

/** A WebP thumbnail whose longest side is at most THUMB_SIZE (sharp runs off the main thread). */
export function thumbnail(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes)
    .resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 80 })
    .toBuffer();
}

/** Removes files, ignoring the ones already gone. */
export async function removeFiles(files: string[]): Promise<void> {
  await Promise.all(files.map((file) => fs.rm(file, { force: true })));
}
