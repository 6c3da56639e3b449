import { randomBytes } from 'node:crypto';
import fsSync, { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Base64Quanta, piecesAfter } from '../upstream/base64Pieces';

/** The base64 text of an image, written to a temporary file while it streamed through. */
export interface SpooledImage {
  path: string;
}

/**
 * The gallery's copy of an image that streams through the gateway, written while it streams:
 * each base64 piece is appended to a file as it passes, so the gateway holds none of the image
 * for the gallery (holding 35 MB per request until the reply ends pushed every piece into the
 * old generation of the heap, the largest CPU cost on small images). The text is written as it
 * came, which costs the response path no decoding: that waits until the reply is over (see
 * `decodeSpooled`). A spool nobody claims is deleted.
 *
 * Pieces are gathered into writes of about 1 MB: one thread-pool write per 64 KB socket read
 * cost 2-4 times the CPU (about 25 against 13 ms per 4K image here). If the disk falls behind,
 * `write` returns a promise, which holds back the upstream read like the caller's socket does.
 */
export interface ImageSpool {
  write(piece: Buffer): void | Promise<void>;
  /** Flushes the file; null if writing it failed (the image is then simply not kept). */
  finish(): Promise<SpooledImage | null>;
  /** Deletes the file (a failed image, or one the gallery did not take). */
  discard(): Promise<void>;
}

/** Bytes gathered before a write. */
const BATCH_BYTES = 1024 * 1024;
/** Bytes handed to the disk but not yet written, beyond which the stream waits. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

export function createImageSpool(dir: string, log: (line: string) => void): ImageSpool {
  const file = path.join(dir, `${randomBytes(8).toString('hex')}.b64`);
  let failed: unknown = null;
  let fd: number | null = null;
  try {
    // Opened at once (one short syscall) so the file exists as soon as the spool does.
    fd = fsSync.openSync(file, 'wx', 0o600);
  } catch (error) {
    failed = error;
  }
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let queuedBytes = 0;
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (batch.length === 0) return;
    const pieces = batch;
    const bytes = batchBytes;
    batch = [];
    batchBytes = 0;
    queuedBytes += bytes;
    writing = writing.then(async () => {
      try {
        if (!failed && fd !== null) await writeAll(fd, pieces);
      } catch (error) {
        failed ??= error;
      } finally {
        queuedBytes -= bytes;
      }
    });
  };
  const close = async () => {
    flush();
    await writing;
    if (fd === null) return;
    const open = fd;
    fd = null;
    await new Promise<void>((resolve) => fsSync.close(open, () => resolve()));
  };

  return {
    write(piece) {
      if (failed) return;
      batch.push(piece);
      batchBytes += piece.length;
      if (batchBytes < BATCH_BYTES) return;
      flush();
      if (queuedBytes > MAX_QUEUED_BYTES) return writing;
    },
    async finish() {
      await close();
      if (!failed) return { path: file };
      log(`image spool ${file}: ${String(failed)}; the image is not kept`);
      await fs.rm(file, { force: true });
      return null;
    },
    async discard() {
      batch = [];
      batchBytes = 0;
      await close();
      await fs.rm(file, { force: true });
    },
  };
}

/** Writes every piece, in order, looping over short writes. */
async function writeAll(fd: number, pieces: Buffer[]): Promise<void> {
  let rest = pieces;
  while (rest.length > 0) {
    const written = await new Promise<number>((resolve, reject) =>
      fsSync.writev(fd, rest, (error, bytes) => (error ? reject(error) : resolve(bytes))),
    );
    if (written === 0) throw new Error('the disk took no bytes');
    rest = piecesAfter(rest, written);
  }
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
