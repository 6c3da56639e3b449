import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Base64Quanta } from '../bytes/base64Pieces';
import type { ImageSpool } from '../domain';
import { giveBack, takeBuffer } from './bufferPool';

export type { ImageSpool, SpooledImage } from '../domain';

/**
 * Full buffers one image may have waiting for the disk before its stream waits. Page-cache writes
 * on the machines measured (about 500 MB/s of decoded bytes) are slower than a local upstream
 * sends an image's base64: with two, the disk set the pace of the whole image and keeping it
 * added about 60 ms to a 4K bridge reply; eight absorb the burst (docs/benchmarks.md, "The
 * bridge's 4K miss").
 */
const MAX_WAITING_PER_IMAGE = 8;
/**
 * Waiting buffers of all images together (the pool's size): past it, an image with a write of
 * its own under way waits for it, so many images at once stay within tens of megabytes.
 */
const MAX_WAITING_ALL = 32;
let waitingAll = 0;
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
    waitingAll += 1;
    writing = writing.then(async () => {
      try {
        if (!failed && fd !== null) await writeAll(fd, buffer.subarray(0, length));
      } catch (error) {
        failed ??= error;
      } finally {
        waiting -= 1;
        waitingAll -= 1;
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
      if (waiting >= MAX_WAITING_PER_IMAGE || (waiting > 0 && waitingAll >= MAX_WAITING_ALL))
        return writing;
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
