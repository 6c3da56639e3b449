import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Base64Quanta } from '../bytes/base64Pieces';
import type { ImageSpool } from '../domain';
import { giveBack, takeBuffer } from './bufferPool';

export type { ImageSpool, SpooledImage } from '../domain';

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
