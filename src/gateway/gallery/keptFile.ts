import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { Base64Quanta, decodePieces } from '../bytes/base64Pieces';
import { giveBack, takeBuffer } from './bufferPool';
import { createUncachedFile } from './uncachedFile';

/*
 * A large kept image's file is first the base64 text it streamed as (spool.ts), named
 * `<id>.<ext>.b64`, and is decoded to `<id>.<ext>` once the gateway is idle (store.ts). Until
 * then its readers decode it on demand; a reader that finds it gone (decoded meanwhile, by this
 * run or another) reads the decoded name, which is always the same name without `.b64`.
 */

export const ENCODED_SUFFIX = '.b64';

export function isEncoded(file: string): boolean {
  return file.endsWith(ENCODED_SUFFIX);
}

/** The decoded file's name: the same path without `.b64`. */
export function decodedPath(file: string): string {
  return isEncoded(file) ? file.slice(0, -ENCODED_SUFFIX.length) : file;
}

/** A kept image's bytes, whichever form its file is in now. Throws ENOENT if it has neither. */
export async function readKeptImage(file: string): Promise<Buffer> {
  if (!isEncoded(file)) return fs.readFile(file);
  try {
    return decodePieces([await fs.readFile(file)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return fs.readFile(decodedPath(file));
  }
}

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

/** Decodes the base64 file `from` into a new file `to` (decodeInto), read a pooled megabyte at a time. */
export async function decodeFile(from: string, to: string, direct: boolean): Promise<number> {
  const input = await fs.open(from, 'r');
  const read = takeBuffer();
  async function* chunks() {
    for (;;) {
      const { bytesRead } = await input.read(read, 0, read.length, null);
      if (bytesRead === 0) return;
      // Taken into strings before the next read reuses the buffer (Base64Quanta.take).
      yield read.subarray(0, bytesRead);
    }
  }
  try {
    return await decodeInto(chunks(), to, direct);
  } finally {
    await input.close();
    giveBack(read);
  }
}
