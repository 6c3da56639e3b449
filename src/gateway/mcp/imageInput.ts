import fs from 'node:fs/promises';
import path from 'node:path';
import { inspectImage } from '../bytes/imageInspect';
import type { McpGallery } from './gallery';

/** A tool argument that cannot become a /v1 request; `param` names it as /v1 would. */
export class ToolInputError extends Error {
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message);
  }
}

/** Under /v1's own cap on each edit input file (strictly under 50 MiB). */
const MAX_FILE_BYTES = 50 * 1024 * 1024;

/**
 * An edit input (`image` or `mask`) from one of: a gallery image of this key, a file the user
 * named, or base64. Becomes the data URL /v1's JSON edit takes; /v1 then checks the image
 * itself (format, size, the mask's alpha) with its own messages.
 */
export async function resolveImageInput(
  value: unknown,
  param: 'image' | 'mask',
  gallery: McpGallery,
  keyId: string,
): Promise<{ dataUrl: string; galleryId?: string }> {
  const given =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  const sources = (['gallery_id', 'path', 'base64'] as const).filter(
    (name) => Object.hasOwn(given, name) && given[name] !== undefined && given[name] !== null,
  );
  if (sources.length !== 1) {
    throw new ToolInputError(
      `${param} must name exactly one of gallery_id, path or base64 (got ${sources.length === 0 ? 'none' : sources.join(', ')}).`,
      param,
    );
  }
  const source = sources[0]!;
  const text = given[source];
  if (typeof text !== 'string' || text === '') {
    throw new ToolInputError(
      `${param}.${source} must be a non-empty string.`,
      `${param}.${source}`,
    );
  }
  let bytes: Buffer;
  let galleryId: string | undefined;
  if (source === 'gallery_id') {
    const image = await gallery.read(keyId, text);
    if (!image) {
      throw new ToolInputError(
        `${param}.gallery_id names no gallery image made with this key: '${text.slice(0, 80)}'.`,
        `${param}.gallery_id`,
      );
    }
    bytes = image.bytes;
    galleryId = image.id;
  } else if (source === 'path') {
    if (!path.isAbsolute(text)) {
      throw new ToolInputError(
        `${param}.path must be an absolute path: '${text}'.`,
        `${param}.path`,
      );
    }
    bytes = await readNamedFile(text, `${param}.path`, gallery.privateRoot);
  } else {
    bytes = Buffer.from(text, 'base64');
  }
  // Only images leave this machine: a named file that is anything else is refused here.
  const info = inspectImage(bytes);
  if (!info) {
    throw new ToolInputError(
      `${param}.${source} is not a PNG, JPEG or WebP image.`,
      `${param}.${source}`,
    );
  }
  return { dataUrl: `data:image/${info.format};base64,${bytes.toString('base64')}`, galleryId };
}

async function readNamedFile(file: string, param: string, privateRoot: string): Promise<Buffer> {
  let stat;
  let real: string;
  try {
    // The real path, links followed: a link into the data folder is the data folder.
    real = await fs.realpath(file);
    stat = await fs.stat(real);
  } catch {
    throw new ToolInputError(`${param}: no such file: '${file}'.`, param);
  }
  const root = await fs.realpath(privateRoot).catch(() => path.resolve(privateRoot));
  if (real === root || real.startsWith(root + path.sep)) {
    throw new ToolInputError(
      `${param}: '${file}' is in Atelier's own data folder; name a gallery image by gallery_id.`,
      param,
    );
  }
  if (!stat.isFile()) throw new ToolInputError(`${param}: not a file: '${file}'.`, param);
  if (stat.size >= MAX_FILE_BYTES) {
    throw new ToolInputError(
      `${param}: '${file}' is ${stat.size} bytes; the limit is under 50 MiB.`,
      param,
    );
  }
  return fs.readFile(real);
}
