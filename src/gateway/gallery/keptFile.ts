import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Base64Quanta, type Base64Pieces } from '../bytes/base64Pieces';
import { giveBack, takeBuffer } from './bufferPool';
import { createUncachedFile } from './uncachedFile';

/** Decoded bytes the pooled buffer must have free before a 64 KB string of text is decoded. */
const MAX_DECODED = 48 * 1024 + 3;

/**
 * Decodes base64 text arriving in chunks into a new file `to` (written aside, then renamed), into
 * one pooled megabyte at a time: no fresh buffer of the image's size, no string of it. Past the
 * page cache when `direct` (uncachedFile.ts). Resolves with the decoded size.
 */
export async function decodeInto(
  text: AsyncIterable<Buffer> | Iterable<Buffer>,
  to: string,
  direct: boolean,
): Promise<number> {
  const temp = `${to}.${randomBytes(4).toString('hex')}.tmp`;
  const decoded = takeBuffer();
  try {
    const out = createUncachedFile(temp, { direct });
    let total = 0;
    let filled = 0;
    // Copied (or written) before it resolves: the buffer is free again after.
    const flush = async () => {
      if (filled > 0) await out.append([decoded.subarray(0, filled)]);
      total += filled;
      filled = 0;
    };
    const decode = async (texts: string[]) => {
      for (const piece of texts) {
        if (decoded.length - filled < MAX_DECODED) await flush();
        filled += decoded.write(piece, filled, 'base64');
      }
    };
    try {
      const quanta = new Base64Quanta();
      for await (const chunk of text) await decode(quanta.take(chunk));
      await decode([quanta.rest()]);
      await flush();
    } finally {
      await out.close();
    }
    await fs.rename(temp, to);
    return total;
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  } finally {
    giveBack(decoded);
  }
}

/** A file to write an image into: opened ahead (`fd`), or to be created now. */
export interface ImageFile {
  path: string;
  fd: number | null;
}

/**
 * Decodes `pieces` into `to` (opened ahead, or a new file made now, mode 0600) and resolves with
 * the decoded size once the bytes are written; on failure the file is gone. A small image's one
 * write of its bytes: the gallery later only renames the file into place (docs/benchmarks.md,
 * "Small images: one write").
 *
 * `atOnce`: decoded now, on the calling thread, into pooled megabytes, and written with one
 * write that starts before this returns when the file is open. Otherwise a pooled megabyte at a
 * time, each written before the next is decoded (a larger image: its memory stays one megabyte
 * and the event loop is never held for long).
 */
export function decodeToFile(
  pieces: Base64Pieces,
  to: ImageFile,
  atOnce: boolean,
): Promise<number> {
  const taken: Buffer[] = [takeBuffer()];
  const filledOf: number[] = [0];
  let bytes = 0;
  let position = 0;
  const decode = (text: string) => {
    let last = taken.length - 1;
    if (taken[last]!.length - filledOf[last]! < MAX_DECODED) {
      taken.push(takeBuffer());
      filledOf.push(0);
      last += 1;
    }
    const length = taken[last]!.write(text, filledOf[last]!, 'base64');
    filledOf[last]! += length;
    bytes += length;
  };
  /** Writes the filled buffers at `position`, keeping the last one (emptied) for what follows. */
  const flush = async (fd: number) => {
    const full = taken.map((buffer, i) => buffer.subarray(0, filledOf[i]));
    await writeAllVectored(fd, full, position);
    for (const piece of full) position += piece.length;
    for (const buffer of taken.splice(0, taken.length - 1)) giveBack(buffer);
    filledOf.splice(0, filledOf.length - 1);
    filledOf[0] = 0;
  };
  const quanta = new Base64Quanta();
  if (atOnce) {
    for (const piece of pieces) for (const text of quanta.take(piece)) decode(text);
    decode(quanta.rest());
  }
  const write = async (fd: number) => {
    try {
      if (!atOnce) {
        for (const piece of pieces) {
          for (const text of quanta.take(piece)) {
            decode(text);
            if (taken.length > 1) await flush(fd);
          }
        }
        decode(quanta.rest());
      }
      await flush(fd);
    } catch (error) {
      fsSync.close(fd, () => undefined);
      await fs.rm(to.path, { force: true });
      throw error;
    }
    // The bytes are the kernel's once written: closing need not be waited for.
    fsSync.close(fd, () => undefined);
    return bytes;
  };
  const written = to.fd === null ? openNewFile(to.path).then(write) : write(to.fd);
  return written.finally(() => {
    for (const buffer of taken) giveBack(buffer);
  });
}

/** Creates `file` (mode 0600); its folder is made again should a sweep have taken it empty. */
export async function openNewFile(file: string): Promise<number> {
  const open = () =>
    new Promise<number>((resolve, reject) =>
      fsSync.open(file, 'wx', 0o600, (error, fd) => (error ? reject(error) : resolve(fd))),
    );
  try {
    return await open();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    return open();
  }
}

/** Writes all of `pieces` at `position` (the file's start by default), looping over short writes. */
export async function writeAllVectored(fd: number, pieces: Buffer[], position = 0): Promise<void> {
  // An empty piece adds nothing, and a write of nothing would read as a disk that took no bytes.
  let rest = pieces.filter((piece) => piece.length > 0);
  while (rest.length > 0) {
    const written = await new Promise<number>((resolve, reject) =>
      fsSync.writev(fd, rest, position, (error, n) => (error ? reject(error) : resolve(n))),
    );
    if (written === 0) throw new Error('the disk took no bytes');
    position += written;
    let skip = written;
    const next: Buffer[] = [];
    for (const piece of rest) {
      if (skip >= piece.length) {
        skip -= piece.length;
        continue;
      }
      next.push(skip > 0 ? piece.subarray(skip) : piece);
      skip = 0;
    }
    rest = next;
  }
}
