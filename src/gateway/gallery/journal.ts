import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { piecesLength } from '../bytes/base64Pieces';
import type { ImageBatch, KeptImage } from './batch';

/*
 * The gallery's promise to keep a request's images, on disk before the reply ends: a journal per
 * request in the run's spool folder. The images themselves wait in memory and are written by the
 * store's queue after the reply; a gateway killed meanwhile leaves the journal, and the next start
 * keeps what it holds (store.ts `recover`). A journal is deleted once all its images are kept.
 *
 * One file, written with one vectored write of the bytes already in hand (no decode, no copy):
 * a JSON line (the batch without its base64) and then each image's base64 text, back to back.
 * An image spooled to a file of its own (a large one) is named by its path instead.
 */

export const JOURNAL_SUFFIX = '.journal';

/** The JSON line: the batch, each image's base64 replaced by its length (or its spool). */
interface JournalHead extends Omit<ImageBatch, 'images' | 'mask'> {
  mask: { b64: string; format: string } | null;
  images: Array<Omit<KeptImage, 'b64'> & { b64Length: number }>;
}

/**
 * The run folder's name says which process on which machine owns it: at start, the folders of
 * this machine's processes that are gone are a stopped run's, whose journals are finished then.
 */
export function runFolderName(nonce: string): string {
  return `run_${encodeURIComponent(os.hostname())}_${process.pid}_${nonce}`;
}

/** Whether a run folder belongs to a process of this machine that is no longer running. */
export function isDeadRunFolder(name: string): boolean {
  const match = /^run_(.+)_(\d+)_[0-9a-f]+$/.exec(name);
  if (!match || match[1] !== encodeURIComponent(os.hostname())) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: alive, someone else's. Only ESRCH says the process is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Writes `batch`'s journal as `<dir>/<requestId>_<nonce>.journal` (a request handing over images
 * twice gets two) and resolves once it is written.
 */
export async function writeJournal(dir: string, batch: ImageBatch): Promise<string> {
  const name = `${encodeURIComponent(batch.requestId)}_${randomBytes(4).toString('hex')}`;
  const file = path.join(dir, `${name}${JOURNAL_SUFFIX}`);
  const head: JournalHead = {
    ...batch,
    mask: batch.mask
      ? { b64: batch.mask.bytes.toString('base64'), format: batch.mask.format }
      : null,
    images: batch.images.map(({ b64, ...image }) => ({
      ...image,
      b64Length: image.spooled ? 0 : piecesLength(b64),
    })),
  };
  const pieces: Buffer[] = [Buffer.from(`${JSON.stringify(head)}\n`)];
  for (const image of batch.images) if (!image.spooled) pieces.push(...image.b64);
  // Opened here (one short call) so the one trip to the thread pool is the write itself; the
  // bytes are in the kernel once it resolves, which is what a killed process cannot undo.
  const fd = openNew(file);
  try {
    await writeAllVectored(fd, pieces);
  } catch (error) {
    fsSync.closeSync(fd);
    await fs.rm(file, { force: true });
    throw error;
  }
  fsSync.close(fd, () => undefined);
  return file;
}

/** Creates `file`; its folder is made again should another run's sweep have taken it empty. */
function openNew(file: string): number {
  try {
    return fsSync.openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    fsSync.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    return fsSync.openSync(file, 'wx', 0o600);
  }
}

/** Reads a journal back; null when it is not whole (the gateway died while writing it). */
export async function readJournal(file: string): Promise<ImageBatch | null> {
  const bytes = await fs.readFile(file);
  const newline = bytes.indexOf(10);
  if (newline < 0) return null;
  let head: JournalHead;
  try {
    head = JSON.parse(bytes.toString('utf8', 0, newline)) as JournalHead;
  } catch {
    return null;
  }
  if (!isHead(head)) return null;
  let at = newline + 1;
  const images: KeptImage[] = [];
  for (const { b64Length, ...image } of head.images) {
    if (at + b64Length > bytes.length) return null;
    images.push({ ...image, b64: [bytes.subarray(at, at + b64Length)] });
    at += b64Length;
  }
  if (at !== bytes.length) return null;
  return {
    ...head,
    mask: head.mask
      ? { bytes: Buffer.from(head.mask.b64, 'base64'), format: head.mask.format }
      : null,
    images,
  };
}

/** The shape this module writes, as far as reading the rest back depends on it. */
function isHead(value: unknown): value is JournalHead {
  if (typeof value !== 'object' || value === null) return false;
  const head = value as Partial<Record<keyof JournalHead, unknown>>;
  return (
    typeof head.requestId === 'string' &&
    (head.mask === null || typeof (head.mask as { b64?: unknown }).b64 === 'string') &&
    Array.isArray(head.images) &&
    head.images.every(
      (image: unknown) =>
        typeof image === 'object' &&
        image !== null &&
        Number.isSafeInteger((image as { b64Length?: unknown }).b64Length) &&
        (image as { b64Length: number }).b64Length >= 0,
    )
  );
}

/** Writes all of `pieces` from the file's start, looping over short writes. */
async function writeAllVectored(fd: number, pieces: Buffer[]): Promise<void> {
  let rest = pieces;
  let position = 0;
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
