import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Base64Quanta } from '../bytes/base64Pieces';
import type { ImageSpool } from '../core/domain';
import { giveBack, takeBuffer } from './bufferPool';
import { BLOCK, createUncachedFile, type UncachedFile } from './uncachedFile';

export type { ImageSpool, SpooledImage } from '../core/domain';

/**
 * Full buffers one image may have waiting for the disk before its stream waits. A local upstream
 * sends an image's base64 faster than the disk takes its bytes for a while: with two, the disk set
 * the pace of the whole image and keeping it added about 60 ms to a 4K bridge reply; eight absorb
 * the burst (docs/benchmarks.md, "The bridge's 4K miss").
 */
const MAX_WAITING_PER_IMAGE = 8;
/**
 * Waiting buffers of all images together (the pool's size): past it, an image with a write of
 * its own under way waits for it, so many images at once stay within tens of megabytes.
 */
const MAX_WAITING_ALL = 32;
let waitingAll = 0;
/** Buffers handed to one write: a staging buffer's worth (uncachedFile.ts SLOT). */
const BUFFERS_PER_WRITE = 4;
/**
 * Base64 decoded at a time: 64 KB of text makes at most 48 KB of bytes. A buffer is flushed
 * once less than that is free, so each decode fits.
 */
const MAX_DECODED = 48 * 1024 + 3;

/**
 * Images this large are written past the page cache (uncachedFile.ts): a 4K image's 26 MB of
 * fresh cache pages cost more kernel CPU than the gateway's own work on it. A small one's do not,
 * and its few writes each wait on the disk instead: 200 images of 1024x640 at 16 at once went
 * from 95-103 to 60-70 per second written direct (docs/benchmarks.md).
 */
export const DIRECT_MIN_PIXELS = 4_000_000;

/**
 * Images smaller than this (every 1024 and 1536 size) are not spooled while they stream: their
 * pieces are held, journaled in one write before the reply ends and written after it (store.ts),
 * so a small reply never waits on the disk while it streams. Measured on the 2-core VM (busy,
 * load 4-5), median of 9: the journal's write, which the reply's end waits for, took 0.8 ms for
 * 2 MB of base64 (a 1.5 MB image), 1.1 ms for 4 MB, 2.6 ms for 8 MB and 8.1 ms for 16 MB, and
 * held whole, 16 images at once of 8 MB would hold 128 MB. A larger image is spooled (its writes
 * overlap its stream) and its reply ends without waiting on the disk.
 */
export const SPOOL_MIN_PIXELS = 2_500_000;

export function createImageSpool(
  dir: string,
  log: (line: string) => void,
  opts: { direct?: boolean } = {},
): ImageSpool {
  const file = path.join(dir, `${randomBytes(8).toString('hex')}.part`);
  let failed: unknown = null;
  let out: UncachedFile | null = null;
  try {
    // Opened at once (one short syscall) so the file exists as soon as the spool does. Past the
    // page cache where the system allows: nobody reads the image soon (uncachedFile.ts).
    out = createUncachedFile(file, { direct: opts.direct ?? true });
  } catch (error) {
    failed = error;
  }
  const quanta = new Base64Quanta();
  let current: Buffer | null = null;
  let filled = 0;
  let total = 0;
  /** Full buffers waiting for the disk (and the bytes filled in each), oldest first. */
  const queued: Array<{ buffer: Buffer; length: number }> = [];
  /** Buffers of this image flushed and not yet written. */
  let waiting = 0;
  /** The loop writing them out, while there are any; resolves once none is left. */
  let writing: Promise<void> | null = null;

  /**
   * Writes what waits, several buffers per write: on a busy event loop a write's cost is mostly
   * its turn, so fewer, larger writes keep up with more images at once.
   */
  const drain = async () => {
    try {
      while (queued.length > 0) {
        const batch = queued.splice(0, BUFFERS_PER_WRITE);
        try {
          if (!failed && out) await out.append(batch.map((b) => b.buffer.subarray(0, b.length)));
        } catch (error) {
          failed ??= error;
        } finally {
          waiting -= batch.length;
          waitingAll -= batch.length;
          for (const { buffer } of batch) giveBack(buffer);
        }
      }
    } finally {
      // Reached only after an await (flush starts no loop once the spool has failed), so no
      // flush can fall between the loop's last look at the queue and this.
      writing = null;
    }
  };
  /**
   * Queues the current buffer for the disk. Past the page cache, all but the last go whole blocks
   * long, their partial block moved to the start of the next: the file then writes each from
   * where it is, with no copy (uncachedFile.ts `append`).
   */
  const flush = (last: boolean) => {
    if (!current || filled === 0) return;
    let next: Buffer | null = null;
    let carried = 0;
    if (failed || !out) {
      giveBack(current);
    } else {
      if (!last && out.direct) {
        carried = filled % BLOCK;
        next = carried > 0 ? takeBuffer() : null;
        next?.set(current.subarray(filled - carried, filled));
      }
      queued.push({ buffer: current, length: filled - carried });
      waiting += 1;
      waitingAll += 1;
      writing ??= drain();
    }
    current = next;
    filled = carried;
  };
  const decode = (text: string) => {
    if (current && current.length - filled < MAX_DECODED) flush(false);
    current ??= takeBuffer();
    const length = current.write(text, filled, 'base64');
    filled += length;
    total += length;
  };
  const close = async () => {
    flush(true);
    await writing;
    if (!out) return;
    const open = out;
    out = null;
    try {
      await open.close();
    } catch (error) {
      failed ??= error;
    }
  };

  return {
    write(piece) {
      if (failed) return;
      for (const text of quanta.take(piece)) decode(text);
      if (waiting >= MAX_WAITING_PER_IMAGE || (waiting > 0 && waitingAll >= MAX_WAITING_ALL))
        return writing ?? undefined;
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
