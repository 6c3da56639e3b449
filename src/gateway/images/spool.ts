import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Base64Quanta } from '../bytes/base64Pieces';
import { giveBack, takeBuffer } from './bufferPool';

/** An image's bytes, decoded into a temporary file while it streamed through. */
export interface SpooledImage {
  path: string;
  /** The decoded size in bytes. */
  bytes: number;
}

/**
 * The gallery's copy of an image that streams through the gateway, written while it streams:
 * each base64 piece is decoded as it passes (in strings of at most 64 KB, into a pooled buffer:
 * about 5 ms of CPU for a 4K image) and each full megabyte written to a file, so the gateway holds
 * none of the socket's pieces for the gallery and the file needs no second pass. Holding the
 * pieces pushed them into the old generation of the heap; spooling the base64 text and decoding
 * it later wrote and read a third more bytes, and fresh memory is dear on the machines measured
 * (docs/benchmarks.md). A spool nobody claims is deleted.
 *
 * At most two buffers wait for the disk per image: beyond that, `write` returns a promise, which
 * holds back the upstream read like the caller's socket does.
 */
export interface ImageSpool {
  write(piece: Buffer): void | Promise<void>;
  /** Flushes the file; null if writing it failed (the image is then simply not kept). */
  finish(): Promise<SpooledImage | null>;
  /** Deletes the file (a failed image, or one the gallery did not take). */
  discard(): Promise<void>;
}

/** Full buffers handed to the disk and not yet written, beyond which the stream waits. */
const MAX_WAITING_BUFFERS = 2;
/**
 * Base64 decoded at a time: 64 KB of text makes at most 48 KB of bytes. A buffer is flushed
 * once less than that is free, so each decode fits.
 */
const MAX_DECODED = 48 * 1024 + 3;

export function createImageSpool(dir: string, log: (line: string) => void): ImageSpool {
  const file = path.join(dir, `${randomBytes(8).toString('hex')}.part`);
  let failed: unknown = null;
  let fd: number | null = null;
  try {
    // Opened at once (one short syscall) so the file exists as soon as the spool does.
    fd = fsSync.openSync(file, 'wx', 0o600);
  } catch (error) {
    failed = error;
  }
  const quanta = new Base64Quanta();
  let current: Buffer | null = null;
  let filled = 0;
  let total = 0;
  let waiting = 0;
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (!current || filled === 0) return;
    const buffer = current;
    const length = filled;
    current = null;
    filled = 0;
    waiting += 1;
    writing = writing.then(async () => {
      try {
        if (!failed && fd !== null) await writeAll(fd, buffer.subarray(0, length));
      } catch (error) {
        failed ??= error;
      } finally {
        waiting -= 1;
        giveBack(buffer);
      }
    });
  };
  const decode = (text: string) => {
    if (current && current.length - filled < MAX_DECODED) flush();
    current ??= takeBuffer();
    const length = current.write(text, filled, 'base64');
    filled += length;
    total += length;
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
      for (const text of quanta.take(piece)) decode(text);
      if (waiting >= MAX_WAITING_BUFFERS) return writing;
    },
    async finish() {
      const rest = quanta.rest();
      if (!failed && rest.length > 0) decode(rest);
      await close();
      if (!failed) return { path: file, bytes: total };
      log(`image spool ${file}: ${String(failed)}; the image is not kept`);
      await fs.rm(file, { force: true });
      return null;
    },
    async discard() {
      if (current) giveBack(current);
      current = null;
      filled = 0;
      await close();
      await fs.rm(file, { force: true });
    },
  };
}

/** Writes all of `bytes` at the file's current position, looping over short writes. */
async function writeAll(fd: number, bytes: Buffer): Promise<void> {
  let from = 0;
  while (from < bytes.length) {
    const written = await new Promise<number>((resolve, reject) =>
      fsSync.write(fd, bytes, from, bytes.length - from, null, (error, n) =>
        error ? reject(error) : resolve(n),
      ),
    );
    if (written === 0) throw new Error('the disk took no bytes');
    from += written;
  }
}
