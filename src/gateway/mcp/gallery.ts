import fs from 'node:fs/promises';
import path from 'node:path';
import type { ImagesRepository, StoredImage } from '../gallery/repository';

/** A gallery image as the MCP tools describe it. */
export interface McpImage {
  id: string;
  prompt: string;
  size: string;
  outputFormat: string;
  mimeType: string;
  createdAt: number;
}

/**
 * The gallery as an MCP session sees it: only the images made with its key. A key is another
 * app's credential; the studio's images and other keys' stay out of its reach.
 */
export interface McpGallery {
  find(
    keyId: string,
    query: { q?: string; limit: number; before?: number },
  ): Promise<{ images: McpImage[]; nextBefore: number | null }>;
  /** The image and its bytes, or null when it is not this key's (or not there). */
  read(keyId: string, id: string): Promise<(McpImage & { bytes: Buffer }) | null>;
  /**
   * Atelier's own data folder (gallery files, the database, secrets): a named file there is
   * refused, so `path` cannot read another key's images past `read`'s check.
   */
  privateRoot: string;
  /** The gallery ids of a request's kept images, in image order. */
  keptFor(requestId: string): Promise<string[]>;
}

export function mimeTypeOf(format: string): string {
  return format === 'jpeg' ? 'image/jpeg' : format === 'webp' ? 'image/webp' : 'image/png';
}

function describe(image: StoredImage): McpImage {
  return {
    id: image.id,
    prompt: image.prompt,
    size: image.deliveredSize,
    outputFormat: image.outputFormat,
    mimeType: mimeTypeOf(image.outputFormat),
    createdAt: image.createdAt,
  };
}

export function createMcpGallery(
  images: ImagesRepository,
  dir: string,
  privateRoot: string,
): McpGallery {
  return {
    privateRoot,
    async find(keyId, query) {
      const page = await images.list({ ...query, key: keyId });
      return { images: page.images.map(describe), nextBefore: page.nextBefore };
    },
    async read(keyId, id) {
      const image = /^img_[0-9a-f]{1,64}$/.test(id) ? await images.get(id) : null;
      if (!image || image.apiKeyId !== keyId) return null;
      const bytes = await fs.readFile(path.join(dir, ...image.file.split('/')));
      return { ...describe(image), bytes };
    },
    async keptFor(requestId) {
      return (await images.keptFor([requestId])).get(requestId)?.imageIds ?? [];
    },
  };
}
