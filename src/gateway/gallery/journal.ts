import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SpooledImage } from '../core/domain';
import type { ImageBatch, KeptImage } from './batch';
import { openNewFile, writeAllVectored } from './keptFile';

/*
 * The gallery's promise to keep a request's images, on disk before the reply ends: one line per
 * request in the run's journal, a file in the run's spool folder that every request appends to.
 * By then each image is in a file of its own in that folder (written while it streamed, or just
 * decoded from the reply's pieces, store.ts `hold`), which the line names with its size; the
 * store's queue moves the files into the gallery after the reply. A gateway killed meanwhile
 * leaves the journal, and the next start keeps what it names (store.ts `recover`).
 *
 * One file for all requests, not one per request: creating and deleting a file per request cost
 * more than the line written to it (two file-system round trips that wait on the folder's lock,
 * 0.6-1 ms of CPU per small image at 16 at once, docs/benchmarks.md). Lines that arrive while a
 * write is under way go out together in the next one. The file is replaced by a fresh one once
 * it has grown and every request it names is kept.
 */

export const JOURNAL_SUFFIX = '.journal';

/** A line: the batch, each image named by its file (its base64 is not in the journal). */
interface JournalLine extends Omit<ImageBatch, 'images' | 'mask'> {
  mask: { b64: string; format: string } | null;
  images: Array<Omit<KeptImage, 'b64' | 'spooled'> & { spooled: SpooledImage }>;
}

/** A journal grows to about this before the next line starts a fresh one. */
const SEGMENT_BYTES = 4 * 1024 * 1024;
/** An idle journal (nothing in it still to keep) this large is replaced at once. */
const IDLE_SEGMENT_BYTES = 64 * 1024;

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

/** One journal file, and how many of the requests it names are not yet kept. */
interface Segment {
  readonly file: string;
  readonly fd: Promise<number>;
  /** The descriptor once open: a write then starts in the same turn as its `add`. */
  opened: number | null;
  size: number;
  open: number;
  /** No line is added any more: it goes once `open` is 0. */
  retired: boolean;
}

/** A request's line in the journal, handed back once its images are kept. */
export interface JournalEntry {
  readonly segment: Segment;
}

export interface RunJournal {
  /**
   * Appends the batch's line (every image must be in its file, `spooled`); resolves once the
   * line is written, which a killed process cannot undo. Rejects if it could not be.
   */
  add(batch: ImageBatch): Promise<JournalEntry>;
  /** The entry's images are kept (or are not to be): the line need not survive a crash. */
  done(entry: JournalEntry): void;
  /** Waits for the lines under way and closes the file, deleting it if nothing is left in it. */
  close(): Promise<void>;
}

/** The run's journal in `dir` (the run's spool folder), opened with its first line. */
export function createRunJournal(dir: string, opts: { segmentBytes?: number } = {}): RunJournal {
  const segmentBytes = opts.segmentBytes ?? SEGMENT_BYTES;
  let sequence = 0;
  let closed = false;
  let waiting: Array<{ line: Buffer; done: (entry: JournalEntry | Error) => void }> = [];
  let writing: Promise<void> | null = null;

  const newSegment = (): Segment => {
    sequence += 1;
    const file = path.join(dir, `journal_${sequence}${JOURNAL_SUFFIX}`);
    const fd = openNewFile(file);
    const segment: Segment = { file, fd, opened: null, size: 0, open: 0, retired: false };
    // Rejections are read by the first write; this only keeps an unread one from being loud.
    fd.then((opened) => (segment.opened = opened)).catch(() => undefined);
    return segment;
  };
  // Opened at once, and replaced as soon as it retires: a live run's folder always holds its
  // journal, which is what tells another gateway's sweep (store.ts) to leave the folder alone.
  let current: Segment | null = newSegment();
  /** Closes and deletes a retired segment once nothing in it is still to keep. */
  const release = (segment: Segment) => {
    if (!segment.retired || segment.open > 0) return;
    void segment.fd
      .then((fd) => new Promise<void>((resolve) => fsSync.close(fd, () => resolve())))
      .catch(() => undefined)
      .then(() => fs.rm(segment.file, { force: true }))
      .catch(() => undefined);
  };
  const retire = (segment: Segment) => {
    segment.retired = true;
    if (current === segment) current = closed ? null : newSegment();
    release(segment);
  };
  /** Writes what waits, as one write per turn, until nothing does. */
  const drain = async () => {
    while (waiting.length > 0) {
      const turn = waiting;
      waiting = [];
      const segment = (current ??= newSegment());
      try {
        const lines = turn.map((w) => w.line);
        const length = lines.reduce((sum, line) => sum + line.length, 0);
        // No await before the write once the file is open: `add` starts it before it returns,
        // so the caller's own work (the store decodes the image next) overlaps it.
        await writeAllVectored(segment.opened ?? (await segment.fd), lines, segment.size);
        segment.size += length;
        segment.open += turn.length;
        for (const w of turn) w.done({ segment });
        if (segment.size >= segmentBytes) retire(segment);
      } catch (error) {
        // A file that took part of a write ends there: the next line starts a fresh one.
        for (const w of turn) w.done(error instanceof Error ? error : new Error(String(error)));
        retire(segment);
      }
    }
    writing = null;
  };

  return {
    add(batch) {
      const line = Buffer.from(`${JSON.stringify(lineOf(batch))}\n`);
      return new Promise<JournalEntry>((resolve, reject) => {
        waiting.push({
          line,
          done: (entry) => (entry instanceof Error ? reject(entry) : resolve(entry)),
        });
        writing ??= drain();
      });
    },
    done(entry) {
      const segment = entry.segment;
      segment.open -= 1;
      if (segment === current && segment.open === 0 && segment.size >= IDLE_SEGMENT_BYTES)
        retire(segment);
      else release(segment);
    },
    async close() {
      closed = true;
      await writing;
      const segment = current;
      if (!segment) return;
      current = null;
      const fd = await segment.fd.catch(() => null);
      if (fd !== null) await new Promise<void>((resolve) => fsSync.close(fd, () => resolve()));
      if (segment.open === 0) await fs.rm(segment.file, { force: true }).catch(() => undefined);
    },
  };
}

function lineOf(batch: ImageBatch): JournalLine {
  return {
    ...batch,
    mask: batch.mask
      ? { b64: batch.mask.bytes.toString('base64'), format: batch.mask.format }
      : null,
    images: batch.images.map(({ b64: _b64, spooled, ...image }) => {
      if (!spooled) throw new Error('a journal names each image by its file');
      return { ...image, spooled };
    }),
  };
}

/**
 * The batches a journal names, in order. A line that does not read whole (the last one, cut
 * short by a kill while it was written: its reply never ended) is skipped, and so is any other
 * that does not parse; their images are never kept.
 */
export async function readJournal(file: string): Promise<ImageBatch[]> {
  const text = await fs.readFile(file, 'utf8');
  const batches: ImageBatch[] = [];
  let from = 0;
  for (let end = text.indexOf('\n'); end >= 0; from = end + 1, end = text.indexOf('\n', from)) {
    let line: unknown;
    try {
      line = JSON.parse(text.slice(from, end));
    } catch {
      continue;
    }
    if (!isLine(line)) continue;
    batches.push({
      ...line,
      mask: line.mask
        ? { bytes: Buffer.from(line.mask.b64, 'base64'), format: line.mask.format }
        : null,
      images: line.images.map((image) => ({ ...image, b64: [] })),
    });
  }
  return batches;
}

/** The shape this module writes, as far as keeping the images depends on it. */
function isLine(value: unknown): value is JournalLine {
  if (typeof value !== 'object' || value === null) return false;
  const line = value as Partial<Record<keyof JournalLine, unknown>>;
  return (
    typeof line.requestId === 'string' &&
    (line.mask === null || typeof (line.mask as { b64?: unknown } | undefined)?.b64 === 'string') &&
    Array.isArray(line.images) &&
    line.images.every((image: unknown) => {
      if (typeof image !== 'object' || image === null) return false;
      const spooled = (image as { spooled?: unknown }).spooled;
      return (
        typeof spooled === 'object' &&
        spooled !== null &&
        typeof (spooled as { path?: unknown }).path === 'string' &&
        Number.isSafeInteger((spooled as { bytes?: unknown }).bytes) &&
        (spooled as { bytes: number }).bytes >= 0
      );
    })
  );
}
