import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { Base64Quanta } from '../bytes/base64Pieces';
import { giveBack, takeBuffer } from './bufferPool';
import { openUncachedFile } from './uncachedFile';

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
    const out = await openUncachedFile(temp, { direct });
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
