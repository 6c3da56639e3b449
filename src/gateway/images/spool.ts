import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Base64Quanta } from '../upstream/base64Pieces';

/** The base64 text of an image, written to a temporary file while it streamed through. */
export interface SpooledImage {
  path: string;
}

/**
 * The gallery's copy of an image that streams through the gateway, written while it streams:
 * each base64 piece is appended to a file as it passes, so the gateway holds none of the image
 * for the gallery (holding 35 MB per request until the reply ends pushed every piece into the
 * old generation of the heap, the largest CPU cost on small images). The text is written as it
 * came, which costs the response path no CPU: decoding waits until the reply is over (see
 * `decodeSpooled`). A spool nobody claims is deleted.
 */
export interface ImageSpool {
  write(piece: Buffer): void;
  /** Flushes the file; null if writing it failed (the image is then simply not kept). */
  finish(): Promise<SpooledImage | null>;
  /** Deletes the file (a failed image, or one the gallery did not take). */
  discard(): Promise<void>;
}

export function createImageSpool(dir: string, log: (line: string) => void): ImageSpool {
  const file = path.join(dir, `${randomBytes(8).toString('hex')}.b64`);
  const out = createWriteStream(file, { mode: 0o600 });
  let failed: unknown = null;
  out.on('error', (error) => {
    failed ??= error;
  });
  const closed = () =>
    new Promise<void>((resolve) => {
      if (out.closed) resolve();
      else out.once('close', () => resolve());
    });

  return {
    write(piece) {
      if (!failed) out.write(piece);
    },
    async finish() {
      out.end();
      await closed();
      if (!failed) return { path: file };
      log(`image spool ${file}: ${String(failed)}; the image is not kept`);
      await fs.rm(file, { force: true });
      return null;
    },
    async discard() {
      if (!out.writableEnded) out.end();
      await closed();
      await fs.rm(file, { force: true });
    },
  };
}

/**
 * Decodes a spooled file's base64 into `to`, a read at a time (never the whole image in
 * memory), and resolves to the decoded size. `to` appears complete or not at all.
 */
export async function decodeSpooled(from: string, to: string): Promise<number> {
  const temp = `${to}.${randomBytes(4).toString('hex')}.tmp`;
  const out = createWriteStream(temp, { mode: 0o600 });
  const quanta = new Base64Quanta();
  let bytes = 0;
  const put = async (text: string) => {
    const decoded = Buffer.from(text, 'base64');
    bytes += decoded.length;
    if (!out.write(decoded))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  try {
    for await (const chunk of createReadStream(from, { highWaterMark: 1024 * 1024 })) {
      for (const text of quanta.take(chunk as Buffer)) await put(text);
    }
    const rest = quanta.rest();
    if (rest.length > 0) await put(rest);
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(() => resolve());
    });
    await fs.rename(temp, to);
    return bytes;
  } catch (error) {
    out.destroy();
    await fs.rm(temp, { force: true });
    throw error;
  }
}
