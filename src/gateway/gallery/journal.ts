import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { piecesAfter, piecesLength } from '../bytes/base64Pieces';
import type { ImageBatch, KeptImage } from './batch';

/*
 * The gallery's promise to keep a request's images, on disk before the reply ends: a journal in
 * the run's spool folder. The images themselves wait in memory and are written by the store's
 * queue after the reply; a gateway killed meanwhile leaves the journal, and the next start keeps
 * what it holds (store.ts `recover`).
 *
 * One write of the bytes already in hand (no decode, no copy): a JSON line (the batch without its
 * base64, and a seal), each image's base64 text back to back, and the seal again. A journal is a
 * slot file the run writes again and again, whose pages are already in the page cache: a new file
 * per request cost its creation, its deletion and fresh pages, and a 1024 reply waited a median
 * 2.2-2.3 ms for its journal where it now waits 1.25 ms (p90 12-14 ms, now 6.5-9 ms; three
 * alternating runs, docs/benchmarks.md). A slot is settled once its images are kept (its closing
 * seal overwritten), and the seal at the end tells a whole journal from a write cut short or an
 * earlier, longer one's leftovers. An image spooled to a file of its own (a large one) is named
 * by its path instead.
 */

export const JOURNAL_SUFFIX = '.journal';

/** The JSON line: the batch, each image's base64 replaced by its length (or its spool). */
interface JournalHead extends Omit<ImageBatch, 'images' | 'mask'> {
  /**
   * The mask's bytes follow the images' text (`length` of them). Journals written before
   * 2026-11-27 carry it as base64 in this line (`b64`): a 21 MB mask made three 28 MB copies
   * (the text, the JSON, its buffer) before the reply could end.
   */
  mask: { length: number; format: string } | { b64: string; format: string } | null;
  images: Array<Omit<KeptImage, 'b64'> & { b64Length: number }>;
  /** Written again after the images: a journal is whole when it follows them (absent: older). */
  seal?: string;
}

/** What a settled journal's seal is overwritten with: never a seal (those are hex). */
const SETTLED = '-'.repeat(16);

/**
 * Free slots kept while journals keep coming, counted by their bytes: as many as the busiest
 * moment needed, up to this. A burst of small images outruns the queue that keeps them (200 of
 * 1024x640 at 16 at once left 180-190 journals live at its end), and every journal that found no
 * free slot was a new file: 2.6 MB of fresh page-cache pages, about 6 ms of kernel time in the
 * thread pool each, in the burst's path. With the last burst's slots kept, the next one writes
 * into pages already in memory (docs/benchmarks.md, "Journal slots kept as long as a burst
 * needs them").
 */
const WARM_SLOT_BYTES = 512 * 1024 * 1024;

/**
 * How many free slots stay once no journal has come for WARM_FOR_MS (the rest are deleted), and
 * how many keep their file open. A burst's other free slots close theirs and open it again when
 * taken (tens of microseconds for a file that exists): a burst of thousands of tiny images does
 * not leave thousands of files open.
 */
export const MAX_FREE_SLOTS = 32;

/** Free slots kept at most, whatever their bytes (tiny journals): files in the spool folder. */
const MAX_WARM_SLOTS = 1024;

/** How long the slots of a burst are kept after the last journal was written. */
const WARM_FOR_MS = 60_000;

/**
 * A slot larger than this (a batch of many images) is deleted once settled rather than kept:
 * the pages of a few small slots are worth keeping warm, a 35 MB one's are not.
 */
const MAX_SLOT_BYTES = 8 * 1024 * 1024;

/** A batch's journal, until its images are kept. */
export interface Journal {
  readonly path: string;
  /** Its images are kept: the journal no longer holds a promise (never rejects). */
  settle(): Promise<void>;
}

/** The journals of one run folder. */
export interface Journals {
  /** Writes `batch`'s journal into a free slot; resolves once it is written. */
  write(batch: ImageBatch): Promise<Journal>;
  /**
   * Deletes the free slots past MAX_FREE_SLOTS and closes the rest's files (reopened when next
   * needed); live journals stay open.
   */
  closeFree(): void;
  /** The free slots and their bytes (tests). */
  readonly free: { slots: number; bytes: number };
}

export interface JournalOptions {
  /** WARM_SLOT_BYTES unless given. */
  warmBytes?: number;
  /** WARM_FOR_MS unless given. */
  warmForMs?: number;
}

interface Slot {
  readonly path: string;
  fd: number | null;
  /** The file's length: the longest journal written into it. */
  size: number;
}

export function createJournals(dir: string, options: JournalOptions = {}): Journals {
  const warmBytes = options.warmBytes ?? WARM_SLOT_BYTES;
  const warmForMs = options.warmForMs ?? WARM_FOR_MS;
  /** Free slots, the most recently settled last (taken first: its pages are the warmest). */
  const free: Slot[] = [];
  let freeBytes = 0;
  let made = 0;
  let lastWriteAt = 0;
  let trimTimer: NodeJS.Timeout | null = null;
  const drop = (slot: Slot) => {
    if (slot.fd !== null) fsSync.close(slot.fd, () => undefined);
    slot.fd = null;
    fsSync.rm(slot.path, { force: true }, () => undefined);
  };
  /** Deletes the coldest free slots past MAX_FREE_SLOTS. */
  const trim = () => {
    while (free.length > MAX_FREE_SLOTS) {
      const slot = free.shift()!;
      freeBytes -= slot.size;
      drop(slot);
    }
  };
  /** Trims once no journal has come for warmForMs. */
  const trimWhenQuiet = (delay: number) => {
    trimTimer = setTimeout(() => {
      trimTimer = null;
      const quiet = performance.now() - lastWriteAt;
      if (quiet < warmForMs) trimWhenQuiet(warmForMs - quiet);
      else trim();
    }, delay);
    trimTimer.unref();
  };
  const keepFree = (slot: Slot) => {
    const room = free.length < MAX_WARM_SLOTS && freeBytes + slot.size <= warmBytes;
    if (slot.size > MAX_SLOT_BYTES || !room) {
      drop(slot);
      return;
    }
    free.push(slot);
    freeBytes += slot.size;
    if (free.length <= MAX_FREE_SLOTS) return;
    if (slot.fd !== null) fsSync.close(slot.fd, () => undefined);
    slot.fd = null;
    if (!trimTimer) trimWhenQuiet(warmForMs);
  };
  /** A free slot (its file open), else a new one, created in the thread pool (openNew). */
  const take = async (): Promise<Slot> => {
    for (let slot = free.pop(); slot; slot = free.pop()) {
      freeBytes -= slot.size;
      if (slot.fd !== null) return slot;
      try {
        slot.fd = fsSync.openSync(slot.path, 'r+');
        return slot;
      } catch {
        // Gone (the run folder swept while the gateway slept, say): a new one is made below.
      }
    }
    // Named by the run and a count: no other writer ever opens it.
    const file = path.join(dir, `slot-${(made += 1)}${JOURNAL_SUFFIX}`);
    return { path: file, fd: await openNew(file), size: 0 };
  };
  return {
    async write(batch) {
      const seal = randomBytes(8).toString('hex');
      const pieces = journalPieces(batch, seal);
      const slot = await take();
      lastWriteAt = performance.now();
      let written: number;
      try {
        // A slot already this long has its pages in the page cache (unless memory ran short
        // since): the write is a copy into them, 0.4 ms for a 1024x640 image's 2.6 MB of
        // base64, where its turn in the thread pool, behind the gallery's image files, waited a
        // median of 8-12 ms under a burst. A new or shorter slot needs fresh pages
        // (milliseconds of kernel time): that write goes to the thread pool. A slot kept free is
        // at most MAX_SLOT_BYTES, so the event loop never copies more than that here.
        written =
          slot.size >= piecesLength(pieces)
            ? writeAllVectoredSync(slot.fd!, pieces)
            : await writeAllVectored(slot.fd!, pieces);
      } catch (error) {
        drop(slot);
        throw error;
      }
      slot.size = Math.max(slot.size, written);
      const sealAt = written - seal.length - 1;
      let settled = false;
      return {
        path: slot.path,
        settle: async () => {
          if (settled) return;
          settled = true;
          try {
            // Its seal overwritten, the journal reads as nothing from now on, and a later write
            // cut short over it cannot make it whole again (where its first byte could).
            // 16 bytes into a page the journal's own write brought into the page cache: a copy, no
            // turn in the thread pool for the writer that keeps the images.
            writeAllVectoredSync(slot.fd!, [Buffer.from(SETTLED)], sealAt);
          } catch {
            drop(slot);
            return;
          }
          keepFree(slot);
        },
      };
    },
    closeFree() {
      if (trimTimer) clearTimeout(trimTimer);
      trimTimer = null;
      trim();
      for (const slot of free) {
        if (slot.fd !== null) fsSync.close(slot.fd, () => undefined);
        slot.fd = null;
      }
    },
    get free() {
      return { slots: free.length, bytes: freeBytes };
    },
  };
}

/** The journal's bytes: the JSON line, the images' base64 as it is, the mask's bytes, the seal. */
function journalPieces(batch: ImageBatch, seal: string): Buffer[] {
  const head: JournalHead = {
    ...batch,
    mask: batch.mask ? { length: batch.mask.bytes.length, format: batch.mask.format } : null,
    images: batch.images.map(({ b64, ...image }) => ({
      ...image,
      b64Length: image.spooled ? 0 : piecesLength(b64),
    })),
    seal,
  };
  const pieces: Buffer[] = [Buffer.from(`${JSON.stringify(head)}\n`)];
  for (const image of batch.images) if (!image.spooled) pieces.push(...image.b64);
  if (batch.mask) pieces.push(batch.mask.bytes);
  pieces.push(Buffer.from(`${seal}\n`));
  return pieces;
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
 * Creates `file` in the thread pool (a create can cost a millisecond: uncachedFile.ts
 * `openUncachedFile`); its folder is made again should another run's sweep have taken it empty.
 */
async function openNew(file: string): Promise<number> {
  const create = () =>
    new Promise<number>((resolve, reject) =>
      fsSync.open(file, 'wx', 0o600, (error, fd) => (error ? reject(error) : resolve(fd))),
    );
  try {
    return await create();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    return await create();
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
  let mask: ImageBatch['mask'] = null;
  if (head.mask && 'b64' in head.mask) {
    mask = { bytes: Buffer.from(head.mask.b64, 'base64'), format: head.mask.format };
  } else if (head.mask) {
    if (at + head.mask.length > bytes.length) return null;
    mask = { bytes: bytes.subarray(at, at + head.mask.length), format: head.mask.format };
    at += head.mask.length;
  }
  if (head.seal === undefined) {
    if (at !== bytes.length) return null;
  } else if (bytes.toString('latin1', at, at + head.seal.length) !== head.seal) {
    // Not yet there: written last, it is there only once all before it is (a write cut short
    // leaves a prefix); what follows it is an earlier journal's leftovers.
    return null;
  }
  const { seal: _seal, ...batch } = head;
  return { ...batch, mask, images };
}

/** The shape this module writes, as far as reading the rest back depends on it. */
function isHead(value: unknown): value is JournalHead {
  if (typeof value !== 'object' || value === null) return false;
  const head = value as Partial<Record<keyof JournalHead, unknown>>;
  return (
    typeof head.requestId === 'string' &&
    (head.seal === undefined || typeof head.seal === 'string') &&
    (head.mask === null || isMaskHead(head.mask)) &&
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

function isMaskHead(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const mask = value as { b64?: unknown; length?: unknown; format?: unknown };
  return (
    typeof mask.format === 'string' &&
    (typeof mask.b64 === 'string' ||
      (Number.isSafeInteger(mask.length) && (mask.length as number) >= 0))
  );
}

/**
 * Writes all of `pieces` at `from` (the file's start), looping over short writes, in order: a
 * write cut short leaves a prefix of them. Resolves with the position after the last byte.
 */
async function writeAllVectored(fd: number, pieces: Buffer[], from = 0): Promise<number> {
  let rest = pieces;
  let position = from;
  while (rest.length > 0) {
    const written = await new Promise<number>((resolve, reject) =>
      fsSync.writev(fd, rest, position, (error, n) => (error ? reject(error) : resolve(n))),
    );
    if (written === 0) throw new Error('the disk took no bytes');
    position += written;
    rest = piecesAfter(rest, written);
  }
  return position;
}

/** writeAllVectored on the calling thread. */
function writeAllVectoredSync(fd: number, pieces: Buffer[], from = 0): number {
  let rest = pieces;
  let position = from;
  while (rest.length > 0) {
    const written = fsSync.writevSync(fd, rest, position);
    if (written === 0) throw new Error('the disk took no bytes');
    position += written;
    rest = piecesAfter(rest, written);
  }
  return position;
}
