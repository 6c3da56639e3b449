import { randomBytes } from 'node:crypto';
import { decodedLength, piecesLength } from '../bytes/base64Pieces';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { costMicros } from '../billing/cost';
import type { Prices } from '../billing/prices';
import type { GatewayEvents } from '../core/events';
import type { ImagesRepository, NewImage, StoredImage } from './repository';
import {
  ensureDir,
  imagePaths,
  newImageId,
  removeFiles,
  thumbnail,
  writeFileAtomic,
} from './files';
import {
  createImageSpool,
  DIRECT_MIN_PIXELS,
  SPOOL_MIN_PIXELS,
  type ImageSpool,
  type SpooledImage,
} from './spool';
import type { ImageBatch } from './batch';
import { createTaskQueue } from './queue';
import { decodeInto, decodeToFile, openNewFile, type ImageFile } from './keptFile';
import {
  createRunJournal,
  isDeadRunFolder,
  JOURNAL_SUFFIX,
  readJournal,
  runFolderName,
  type JournalEntry,
} from './journal';

/** A request's images from `hold` until they are all written. */
interface Held {
  /** Each image in its file (`spooled`), or, should writing it have failed, in memory. */
  batch: ImageBatch;
  /** Settles once the journal line and the files are written (or failed: `journal` is null). */
  journaled: Promise<void>;
  journal: JournalEntry | null;
  /** The files `hold` wrote the small images to (gone should the batch be superseded). */
  ownSpools: string[];
  /** The request handed its images over again: this batch is not kept. */
  superseded: boolean;
}

export interface ImageStore {
  /** The folder the relative paths of the images table are under. */
  readonly dir: string;
  /**
   * Holds a request's images until its usage record is written (the reply is over by then):
   * writes each to a file of its own in the run's folder and names them in the run's journal
   * (journal.ts), and resolves once both are on disk, so a reply that waits for it ends only once
   * a crash can no longer lose the images. Never rejects.
   */
  hold(batch: ImageBatch): Promise<void>;
  /**
   * The request's usage record is written: queue its held images (if any) for the disk, each
   * with its share of `requestCostMicros`.
   */
  confirm(requestId: string, requestCostMicros: number): void;
  /**
   * A file to write an image of `pixels` into while it streams through (spool.ts); null below
   * SPOOL_MIN_PIXELS: such an image is kept from its pieces after the reply.
   */
  spool(pixels: number): ImageSpool | null;
  /** Deletes a spooled file unless a held batch has claimed it. */
  dropUnclaimed(spooled: SpooledImage): Promise<void>;
  /** Deletes an image's row and files. */
  remove(id: string): Promise<StoredImage | null>;
  /** The thumbnail's absolute path, made now if it is missing (a failed or interrupted write). */
  ensureThumb(image: StoredImage): Promise<string>;
  /** Waits for every queued file write (shutdown); pending thumbnails are left for later. */
  drain(): Promise<void>;
  /**
   * Keeps the images a stopped run of this machine had journaled and not yet written (its usage
   * record already says what they cost), skipping any already in the gallery; resolves with how
   * many it kept. A journal whose request has no usage record yet stays for a later start.
   */
  recover(): Promise<number>;
}

export interface ImageStoreDeps {
  dir: string;
  repo: ImagesRepository;
  priceOf: (model: string) => Prices | null;
  now: () => number;
  log: (line: string) => void;
  /** Where a kept image, once on disk and in the gallery, is announced (the `image` event). */
  events: Pick<GatewayEvents, 'emit'>;
  /** Image writes at once: 1 by default, which also keeps them in order (sharp has threads of its own). */
  concurrency?: number;
  /**
   * Resolves once no request is in flight: thumbnails wait for that quiet moment. Without it,
   * they do not wait.
   */
  whenIdle?: () => Promise<void>;
  /**
   * How long the gateway must have been idle, with no image coming in, before a thumbnail is made
   * in the background (default QUIET_MS). The gallery makes any it asks for at once.
   */
  quietMs?: number;
  /** How often journals waiting for their usage record are tried again (RECOVER_RETRY_MS). */
  recoverRetryMs?: number;
  /** A request's recorded cost, for the images a stopped run left journaled (`recover`). */
  usageCostOf?: (requestId: string) => Promise<number | null>;
  /**
   * For tests only: file writes wait for this (a test kills the gateway while images wait in
   * the queue, then finds them kept after the restart).
   */
  holdWrites?: Promise<void>;
}

/** A usage lease's length (usage/writer.ts): by then another instance may have recorded it. */
export const RECOVER_RETRY_MS = 30_000;

/**
 * A thumbnail waits for this much quiet. A client that sends its next request soon after the
 * last reply (150 ms later, say) leaves the gateway idle between requests; a 4K PNG's thumbnail
 * (100-200 ms of CPU on the machines measured, docs/benchmarks.md) started in that gap would
 * land in the next request. A second without requests is a pause in the traffic, not a gap.
 */
export const QUIET_MS = 1000;

/**
 * Base64 of one image decoded at once when it is handed over (a 1024x640 noise PNG, 2.8 MB of
 * base64, and any photograph-like 1024 image); a larger one is decoded in megabyte steps, its
 * journal line written after it. Chosen by measurement, not by the cost of decoding alone (2 MB
 * in 64 KB strings takes 0.23 ms here): a 1024x1024 noise PNG (4.4 MB of base64) added 8.8-13.0
 * ms over the gallery off at once and 3.2-6.3 ms in steps, `npm run bench -- --only paths --case
 * paths.apiKey.1024`, three runs of each.
 */
export const DECODE_AT_ONCE_MAX = 4 * 1024 * 1024;

/** Image files kept open ahead in the run's folder (`takeFile`): 16 small replies at once need 16. */
const SPARE_FILES = 16;

/**
 * A spool file untouched this long belongs to no request: an upstream call times out within
 * minutes (300 s at most), and an image streams into its spool while the call runs.
 */
export const STALE_SPOOL_MS = 60 * 60_000;

/**
 * Removes, under the spool root, the files (of the layout before run folders, or in any run's
 * folder) last written before `before`, and the run folders left empty. A live run's fresh files
 * stay.
 */
function removeStaleSpools(root: string, before: number): void {
  const removeIfStale = (file: string) => {
    const stat = fsSync.statSync(file, { throwIfNoEntry: false });
    if (stat?.isFile() && stat.mtimeMs < before) fsSync.rmSync(file, { force: true });
  };
  const entries = fsSync.existsSync(root) ? fsSync.readdirSync(root, { withFileTypes: true }) : [];
  for (const entry of entries) {
    const full = path.join(root, entry.name);
    if (!entry.isDirectory()) {
      removeIfStale(full);
      continue;
    }
    const files = fsSync.readdirSync(full);
    // A folder with a journal holds images still to be kept (`recover`), spools included.
    if (files.some((file) => file.endsWith(JOURNAL_SUFFIX))) continue;
    for (const file of files) removeIfStale(path.join(full, file));
    // Fails while the folder still holds a fresh file: then it stays.
    try {
      fsSync.rmdirSync(full);
    } catch {
      // Not empty: a run still at work.
    }
  }
}

/**
 * The gallery's files. Before the reply ends, only what makes the images safe from a crash: each
 * in a file of its own, named in the run's journal (`hold`). The rest waits until the reply has
 * been sent and the usage record written, then runs in a small queue: the file moves into the
 * gallery and its row is inserted, so no kept image is ever without its record. Failures are
 * logged, never thrown at a request.
 */
export function createImageStore(deps: ImageStoreDeps): ImageStore {
  const held = new Map<string, Held>();
  // Each run spools into a folder of its own: gateways sharing the images folder (the desktop
  // app and the CLI, a team gateway's instances) never touch each other's images in progress.
  // What a stopped run left behind is garbage once no request can still be writing it.
  const spoolDir = path.join(deps.dir, '.spool', runFolderName(randomBytes(8).toString('hex')));
  removeStaleSpools(path.dirname(spoolDir), Date.now() - STALE_SPOOL_MS);
  fsSync.mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  const journal = createRunJournal(spoolDir);
  const claimed = new Set<string>();
  const queue = createTaskQueue(deps.concurrency ?? 1, (error) =>
    deps.log(`image store: ${error instanceof Error ? error.message : String(error)}`),
  );
  const abs = (rel: string) => path.join(deps.dir, ...rel.split('/'));

  // The studio's thumbnails wait until no request is in flight and the traffic has paused
  // (whenQuiet): a 4K PNG's decode costs 100-200 ms of CPU that live traffic needs more, and the
  // gallery makes any thumbnail it asks for before then. API images' wait for the gallery.
  const thumbs = createTaskQueue(1, (error) =>
    deps.log(`image store: ${error instanceof Error ? error.message : String(error)}`),
  );
  let closing = false;
  let closed: () => void = () => undefined;
  const closedSignal = new Promise<void>((resolve) => (closed = resolve));
  /** Resolves once no request is in flight, or at shutdown. */
  const whenIdle = async () => {
    if (closing || !deps.whenIdle) return;
    await Promise.race([deps.whenIdle(), closedSignal]);
  };
  const quietMs = deps.quietMs ?? QUIET_MS;
  /** When an image last came in (its spool opened, or its batch was held or written). */
  let lastImageAt = -Infinity;
  const touched = () => {
    lastImageAt = performance.now();
  };
  /**
   * Resolves once no request is in flight and none has brought an image for `quietMs` (or at
   * shutdown): idle alone is true between any two requests of a busy client.
   */
  const whenQuiet = async () => {
    for (;;) {
      await whenIdle();
      if (closing || !deps.whenIdle) return;
      const wait = lastImageAt + quietMs - performance.now();
      if (wait <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (timer = setTimeout(resolve, wait))),
        closedSignal,
      ]);
      clearTimeout(timer);
    }
  };

  /**
   * Files opened ahead in the run's folder (SPARE_FILES), so that a small image's write, which
   * its reply waits for, is one trip to the thread pool rather than three (open, write, close).
   */
  const spares: ImageFile[] = [];
  let spareOpening = 0;
  const partPath = () => path.join(spoolDir, `${randomBytes(8).toString('hex')}.part`);
  const refillSpares = () => {
    while (!closing && spares.length + spareOpening < SPARE_FILES) {
      spareOpening += 1;
      const file = partPath();
      openNewFile(file).then(
        (fd) => {
          spareOpening -= 1;
          if (!closing) return void spares.push({ path: file, fd });
          fsSync.close(fd, () => undefined);
          void removeFiles([file]).catch(() => undefined);
        },
        () => {
          // The folder cannot take files now: each image opens its own (and says why).
          spareOpening -= 1;
        },
      );
    }
  };
  const takeFile = (): ImageFile => {
    const spare = spares.pop();
    refillSpares();
    return spare ?? { path: partPath(), fd: null };
  };

  /**
   * The batch with each of its images not yet on disk given a file of its own in the run's
   * folder (its `spooled`, with the size its text decodes to), and `write`, which writes them:
   * the caller sends the journal line naming them first, so its write overlaps the decoding. An
   * image of up to DECODE_AT_ONCE_MAX is decoded at once; a larger one (or text whose size cannot
   * be told from its length) a megabyte at a time in between other work, its size filled in once
   * written (its line waits for that: `deferred`).
   */
  const imageFiles = (
    batch: ImageBatch,
  ): { batch: ImageBatch; files: string[]; write: () => Promise<void>; deferred: boolean } => {
    const files: string[] = [];
    const writes: Array<() => Promise<void>> = [];
    let deferred = false;
    const images = batch.images.map((image) => {
      // A spooled image is read from its file: its pieces need not stay in memory.
      if (image.spooled) return { ...image, b64: [] };
      const pieces = image.b64;
      const predicted = decodedLength(pieces);
      if (predicted !== null && piecesLength(pieces) <= DECODE_AT_ONCE_MAX) {
        const file = takeFile();
        files.push(file.path);
        writes.push(async () => {
          const bytes = await decodeToFile(pieces, file, true);
          if (bytes !== predicted)
            throw new Error(`${file.path}: ${bytes} bytes, not ${predicted}`);
        });
        return { ...image, b64: [], spooled: { path: file.path, bytes: predicted } };
      }
      deferred = true;
      const direct = image.width * image.height >= DIRECT_MIN_PIXELS;
      // A 4K image goes past the page cache (uncachedFile.ts); a smaller one into a file
      // opened ahead, a megabyte at a time.
      const file = direct ? { path: partPath(), fd: null } : takeFile();
      const spooled = { path: file.path, bytes: 0 };
      files.push(spooled.path);
      writes.push(async () => {
        spooled.bytes = direct
          ? await decodeInto(pieces, spooled.path, true)
          : await decodeToFile(pieces, file, false);
      });
      return { ...image, b64: [], spooled };
    });
    const write = () =>
      Promise.allSettled(writes.map((start) => start())).then((results) => {
        const failed = results.find((result) => result.status === 'rejected');
        if (failed) throw failed.reason;
      });
    return { batch: { ...batch, images }, files, write, deferred };
  };

  /**
   * Queues the batch's images for the disk (all but `skip`, already in the gallery), each with
   * its share of the request's cost; its journal goes once the last is written.
   */
  const queueBatch = (entry: Held, requestCostMicros: number, skip: ReadonlySet<number>) => {
    const costs = shareCost(entry.batch, requestCostMicros, deps.priceOf(entry.batch.model));
    const createdAt = deps.now();
    queue.push(async () => {
      await deps.holdWrites;
      // A reply too large to wait for its journal can be over before the files are written.
      await entry.journaled;
      const batch = entry.batch;
      const announce: Array<() => void> = [];
      try {
        for (let i = 0; i < batch.images.length; i += 1) {
          if (skip.has(i)) continue;
          // One image failing (logged) does not cost the others theirs.
          await writeOne(batch, i, costs[i]!, createdAt).then(
            (then) => announce.push(then),
            (error: unknown) =>
              deps.log(`image store: ${error instanceof Error ? error.message : String(error)}`),
          );
        }
      } finally {
        if (entry.journal) journal.done(entry.journal);
      }
      // Announced once its journal line is done with: whoever sees an image sees no promise left.
      for (const then of announce) then();
    });
  };

  const writeOne = async (batch: ImageBatch, index: number, cost: number, createdAt: number) => {
    const image = batch.images[index]!;
    const id = newImageId();
    const paths = imagePaths(id, createdAt, image.format, batch.mask?.format);
    const spooled = image.spooled;
    // A spooled image was decoded on the way: its file only moves into place.
    const file = paths.file;
    const written = [abs(file)];
    let stored: StoredImage;
    let size: number;
    try {
      await ensureDir(path.dirname(abs(file)));
      if (spooled) {
        await fs.rename(spooled.path, abs(file));
        size = spooled.bytes;
      } else {
        size = await decodeInto(image.b64, abs(file), false);
      }
      if (batch.mask && paths.mask) {
        written.push(abs(paths.mask));
        await writeFileAtomic(abs(paths.mask), batch.mask.bytes);
      }
      stored = await deps.repo.insert(
        toRow(batch, index, { id, createdAt, cost, bytes: size, ...paths, file }),
      );
    } catch (error) {
      // No file without its row: a kept image is either complete or not there at all.
      await removeFiles(spooled ? [...written, spooled.path] : written);
      throw new Error(`image ${index} of ${batch.requestId} was not kept: ${String(error)}`, {
        cause: error,
      });
    } finally {
      if (spooled) claimed.delete(spooled.path);
    }
    return () => announced(batch, stored, paths.thumb);
  };

  /** A kept image's `image` event, and its thumbnail queued for a quiet moment. */
  const announced = (batch: ImageBatch, stored: StoredImage, thumb: string) => {
    const id = stored.id;
    deps.events.emit('image', stored.id, stored.requestId);
    touched();
    // An API caller's image gets its thumbnail when the gallery first shows it (ensureThumb): a
    // server that keeps every image of another app's traffic would otherwise spend 100-200 ms of
    // CPU per 4K image on thumbnails nobody may look at. The studio's own images are about to be
    // looked at: theirs are made at the next pause.
    if (batch.source === 'api') return;
    thumbs.push(async () => {
      await whenQuiet();
      if (closing) return;
      const current = await deps.repo.get(id);
      if (!current || current.thumb) return;
      await makeThumb(current, thumb).catch((error: unknown) =>
        deps.log(`image ${id}: no thumbnail yet (${String(error)}); it is made when first asked`),
      );
      // Deleted while its thumbnail was being made: leave no orphan behind.
      if (!(await deps.repo.get(id))) await removeFiles([abs(thumb)]);
    });
  };

  /**
   * Queues a request's images a stopped run journaled; resolves with how many, or null when the
   * request has no usage record yet (its journal stays). Images already in the gallery are
   * skipped. A batch none of whose images is kept and whose files are short is of a reply that
   * never ended (it waits for them): nothing was delivered, nothing is kept.
   */
  const recoverBatch = async (batch: ImageBatch): Promise<number | null> => {
    const kept = (await deps.repo.ofRequests([batch.requestId])).get(batch.requestId) ?? [];
    const skip = new Set(kept.map((image) => image.index));
    const whole = await spoolsWhole(batch);
    const lost = batch.images.flatMap((image, i) =>
      skip.has(i) || whole[i] ? [] : [image.spooled?.path ?? ''],
    );
    if (lost.length > 0) {
      if (skip.size === 0) {
        await removeFiles(lost.filter(Boolean));
        return 0;
      }
      deps.log(`request ${batch.requestId}: ${lost.length} image(s) left no whole file to keep`);
      batch.images.forEach((_, i) => whole[i] || skip.add(i));
    }
    if (skip.size === batch.images.length) return 0;
    const cost = (await deps.usageCostOf?.(batch.requestId)) ?? null;
    if (cost === null) {
      deps.log(`request ${batch.requestId}: images wait for its usage record to be kept`);
      return null;
    }
    const entry: Held = {
      batch,
      journaled: Promise.resolve(),
      journal: null,
      ownSpools: [],
      superseded: false,
    };
    queueBatch(entry, cost, skip);
    return batch.images.length - skip.size;
  };

  // One thumbnail in the making per image: the idle queue and a gallery request may both ask.
  const making = new Map<string, Promise<void>>();
  const makeThumb = (image: StoredImage, rel: string): Promise<void> => {
    const existing = making.get(image.id);
    if (existing) return existing;
    const made = (async () => {
      const bytes = await fs.readFile(abs(image.file));
      await writeFileAtomic(abs(rel), await thumbnail(bytes));
      await deps.repo.setThumb(image.id, rel);
    })().finally(() => making.delete(image.id));
    making.set(image.id, made);
    return made;
  };

  let retry: NodeJS.Timeout | undefined;
  /** The recovery under way, if any: shutdown waits for it. */
  let recovering: Promise<number> = Promise.resolve(0);
  /**
   * Keeps what this machine's stopped runs journaled (`ImageStore.recover`). A journal whose
   * request has no usage record yet (PostgreSQL: another instance records it once the lease is
   * over) is tried again every RECOVER_RETRY_MS while the store is open.
   */
  const recover = async (first: boolean): Promise<number> => {
    const root = path.dirname(spoolDir);
    let kept = 0;
    let runs = 0;
    let waiting = false;
    for (const name of fsSync.readdirSync(root)) {
      if (!isDeadRunFolder(name)) continue;
      runs += 1;
      const folder = path.join(root, name);
      let unfinished = false;
      for (const file of fsSync.readdirSync(folder)) {
        if (!file.endsWith(JOURNAL_SUFFIX)) continue;
        for (const batch of await readJournal(path.join(folder, file))) {
          const found = await recoverBatch(batch);
          if (found === null) unfinished = waiting = true;
          else kept += found;
        }
      }
      await queue.drain();
      // What is left is the stopped run's spools of images never delivered.
      if (!unfinished) await fs.rm(folder, { recursive: true, force: true });
    }
    if (first ? runs > 0 : kept > 0) deps.log(`kept ${kept} image(s) a stopped run left to keep`);
    if (waiting && !closing) {
      retry = setTimeout(() => {
        recovering = recover(false);
        recovering.catch((error: unknown) => deps.log(`gallery recovery: ${String(error)}`));
      }, deps.recoverRetryMs ?? RECOVER_RETRY_MS);
      retry.unref();
    }
    return kept;
  };

  return {
    dir: deps.dir,
    hold(original) {
      if (original.images.length === 0) return Promise.resolve();
      touched();
      // A small image (not spooled while it streamed) is decoded now and written once, to a file
      // of its own that the queue only renames into the gallery; the journal names it.
      const written = imageFiles(original);
      const batch = written.batch;
      const entry: Held = {
        batch,
        journaled: Promise.resolve(),
        journal: null,
        ownSpools: written.files,
        superseded: false,
      };
      // A request hands its images over once; should it do so again, the last word stands.
      const superseded = held.get(batch.requestId);
      if (superseded) {
        superseded.superseded = true;
        void superseded.journaled
          .then(() => {
            if (superseded.journal) journal.done(superseded.journal);
            return removeFiles(superseded.ownSpools);
          })
          .catch((error: unknown) => deps.log(`image store: ${String(error)}`));
      }
      held.set(batch.requestId, entry);
      for (const image of batch.images) if (image.spooled) claimed.add(image.spooled.path);
      // The journal line and the images' files are written at once: a reply waits for both, so
      // a line whose files are short (recoverBatch) is of a reply that never ended.
      // The line goes first: its write is under way while the images are decoded.
      let files: Promise<void>;
      let line: Promise<JournalEntry>;
      if (written.deferred) {
        files = written.write();
        line = files.then(() => journal.add(batch));
      } else {
        line = journal.add(batch);
        files = written.write();
      }
      entry.journaled = Promise.allSettled([line, files]).then(async ([added, files]) => {
        if (added.status === 'fulfilled' && files.status === 'fulfilled') {
          entry.journal = added.value;
          return;
        }
        const error: unknown =
          added.status === 'rejected'
            ? added.reason
            : files.status === 'rejected'
              ? files.reason
              : null;
        deps.log(`request ${batch.requestId}: images not journaled: ${String(error)}`);
        if (added.status === 'fulfilled') journal.done(added.value);
        await removeFiles(written.files).catch((failed: unknown) =>
          deps.log(`request ${batch.requestId}: ${String(failed)}`),
        );
        for (const file of written.files) claimed.delete(file);
        entry.ownSpools = [];
        // Held in memory instead (the pieces the reply had), written after it as best it can.
        if (!entry.superseded) entry.batch = original;
      });
      return entry.journaled;
    },
    spool: (pixels) => {
      touched();
      if (pixels < SPOOL_MIN_PIXELS) return null;
      // Made again should another run's sweep have taken it while it was empty.
      fsSync.mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
      return createImageSpool(spoolDir, deps.log, { direct: pixels >= DIRECT_MIN_PIXELS });
    },
    async dropUnclaimed(spooled) {
      if (!claimed.has(spooled.path)) await removeFiles([spooled.path]);
    },
    confirm(requestId, requestCostMicros) {
      const entry = held.get(requestId);
      if (!entry) return;
      held.delete(requestId);
      queueBatch(entry, requestCostMicros, new Set());
    },
    recover: () => (recovering = recover(true)),
    async remove(id) {
      const image = await deps.repo.remove(id);
      if (!image) return null;
      // Both names of an image still in base64: it may be being decoded right now.
      const files = [image.file, image.thumb, image.mask].filter((f): f is string => f !== null);
      await removeFiles(files.map(abs)).catch((error: unknown) =>
        deps.log(`image ${id}: files not removed: ${String(error)}`),
      );
      return image;
    },
    async ensureThumb(image) {
      if (image.thumb) {
        const existing = abs(image.thumb);
        if (
          await fs.stat(existing).then(
            () => true,
            () => false,
          )
        )
          return existing;
      }
      const rel = imagePaths(image.id, image.createdAt, image.outputFormat).thumb;
      await makeThumb(image, rel);
      return abs(rel);
    },
    drain: async () => {
      clearTimeout(retry);
      await recovering.catch(() => undefined);
      await queue.drain();
      // Thumbnails not made yet are made when first asked; shutdown does not wait for them.
      closing = true;
      closed();
      await journal.close();
      const left = spares.splice(0);
      for (const spare of left) if (spare.fd !== null) fsSync.close(spare.fd, () => undefined);
      await removeFiles(left.map((spare) => spare.path));
      await thumbs.drain();
    },
  };
}

/**
 * Each image's share of its request's cost: priced on its own tokens, with the rounding
 * difference on the first image, so the images of a request add up to its usage record exactly.
 */
export function shareCost(
  batch: Pick<ImageBatch, 'images'>,
  requestCostMicros: number,
  price: Prices | null,
): number[] {
  const n = batch.images.length;
  const costs = price
    ? batch.images.map((image) => costMicros(image.usage, price))
    : batch.images.map(
        (_, i) => Math.floor(requestCostMicros / n) + (i === 0 ? requestCostMicros % n : 0),
      );
  const rest = requestCostMicros - costs.reduce((a, b) => a + b, 0);
  costs[0] = Math.max(0, costs[0]! + rest);
  return costs;
}

function toRow(
  batch: ImageBatch,
  index: number,
  at: {
    id: string;
    createdAt: number;
    cost: number;
    bytes: number;
    file: string;
    mask: string | null;
  },
): NewImage {
  const image = batch.images[index]!;
  return {
    id: at.id,
    requestId: batch.requestId,
    index,
    createdAt: at.createdAt,
    source: batch.source,
    endpoint: batch.endpoint,
    prompt: batch.prompt,
    revisedPrompt: image.revisedPrompt,
    model: batch.model,
    requestedSize: batch.requestedSize,
    deliveredSize: `${image.width}x${image.height}`,
    quality: batch.quality,
    outputFormat: image.format,
    outputCompression: batch.outputCompression,
    background: batch.background,
    moderation: batch.moderation,
    width: image.width,
    height: image.height,
    bytes: at.bytes,
    inputTokens: image.usage.input_tokens,
    outputTokens: image.usage.output_tokens,
    totalTokens: image.usage.total_tokens,
    costMicros: at.cost,
    parentId: batch.parentId,
    apiKeyId: batch.apiKeyId,
    fallbackStep: image.fallbackStep,
    file: at.file,
    mask: at.mask,
  };
}

/** For each image, whether its file (`spooled`) is there with all its bytes. */
async function spoolsWhole(batch: ImageBatch): Promise<boolean[]> {
  return Promise.all(
    batch.images.map((image) =>
      image.spooled
        ? fs.stat(image.spooled.path).then(
            (stat) => stat.size === image.spooled!.bytes,
            () => false,
          )
        : false,
    ),
  );
}
