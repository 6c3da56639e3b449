import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { costMicros } from '../billing/cost';
import { piecesLength } from '../bytes/base64Pieces';
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
import { decodeInto } from './keptFile';
import {
  createJournals,
  isDeadRunFolder,
  JOURNAL_SUFFIX,
  readJournal,
  runFolderName,
  type Journal,
} from './journal';

/** A request's images from `hold` until they are all written. */
interface Held {
  batch: ImageBatch;
  /** Settles once the journal is written (or failed: then `journal` stays null). */
  journaled: Promise<void>;
  journal: Journal | null;
  /** Base64 bytes of this batch counted in `heldBytes` (0 once let go for the journal). */
  inMemory: number;
  /** The base64 was let go: it is read back from the journal. */
  released: boolean;
}

export interface ImageStore {
  /** The folder the relative paths of the images table are under. */
  readonly dir: string;
  /**
   * Holds a request's images until its usage record is written (the reply is over by then), and
   * writes its journal (journal.ts): resolves once that is on disk, so a reply that waits for it
   * ends only once a crash can no longer lose the images. Never rejects.
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
  /**
   * Image writes at once, of each kind (decoded after the reply, or moved from their spool): 1 by
   * default, which also keeps each kind in order (sharp has threads of its own).
   */
  concurrency?: number;
  /**
   * Resolves once no request is in flight: held images' writes wait for it (at most
   * `maxWriteWaitMs`), thumbnails for that and a quiet moment. Without it, neither waits.
   */
  whenIdle?: () => Promise<void>;
  /**
   * How long a held image waits at most for a moment without requests before it is written
   * anyway (default MAX_WRITE_WAIT_MS).
   */
  maxWriteWaitMs?: number;
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

/**
 * The base64 of held images kept in memory at most, all requests together: past it, a request's
 * images are read back from its journal when their turn comes, so a burst never delays a reply
 * and never grows the heap without bound.
 */
export const MAX_HELD_BYTES = 64 * 1024 * 1024;

/**
 * Held images are written once no request is in flight, or after waiting this long. Writing one
 * costs several milliseconds of CPU (decode, a new file's pages, its row), which a burst's
 * replies need more: on two cores, a burst of small images took a median 0.92x of the time
 * once the writer waited (five runs, docs/benchmarks.md). The bound keeps a gateway that is never idle
 * (a team's steady traffic) writing all the same, a couple of seconds behind; its journals keep
 * every image safe meanwhile.
 */
export const MAX_WRITE_WAIT_MS = 2_000;

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
 * The gallery's files. Nothing here runs on a request's critical path: images are held until the
 * reply has been sent and the usage record written, then written by a small queue. A row is
 * inserted as soon as its file is on disk, so no kept image is ever without its record, and
 * failures are logged, never thrown at a request.
 */
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

export function createImageStore(deps: ImageStoreDeps): ImageStore {
  const held = new Map<string, Held>();
  /** The base64 bytes of held and queued images kept in memory (MAX_HELD_BYTES). */
  let heldBytes = 0;
  // Each run spools into a folder of its own: gateways sharing the images folder (the desktop
  // app and the CLI, a team gateway's instances) never touch each other's images in progress.
  // What a stopped run left behind is garbage once no request can still be writing it.
  const spoolDir = path.join(deps.dir, '.spool', runFolderName(randomBytes(8).toString('hex')));
  removeStaleSpools(path.dirname(spoolDir), Date.now() - STALE_SPOOL_MS);
  fsSync.mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  const journals = createJournals(spoolDir);
  const claimed = new Set<string>();
  const logError = (error: unknown) =>
    deps.log(`image store: ${error instanceof Error ? error.message : String(error)}`);
  const queue = createTaskQueue(deps.concurrency ?? 1, logError);
  /**
   * Batches with nothing left to decode (spooled images: a rename and a row): a queue of their
   * own, so they never wait behind a batch that waits for a moment without requests.
   */
  const moves = createTaskQueue(deps.concurrency ?? 1, logError);
  const drainWrites = async () => {
    await Promise.all([queue.drain(), moves.drain()]);
  };
  const abs = (rel: string) => path.join(deps.dir, ...rel.split('/'));

  // The studio's thumbnails wait until no request is in flight and the traffic has paused
  // (whenQuiet): a 4K PNG's decode costs 100-200 ms of CPU that live traffic needs more, and the
  // gallery makes any thumbnail it asks for before then. API images' wait for the gallery.
  const thumbs = createTaskQueue(1, logError);
  let closing = false;
  /** Waits that end at shutdown too; each is removed once it has ended. */
  const closeWaiters = new Set<() => void>();
  const closed = () => {
    for (const done of [...closeWaiters]) done();
  };
  /**
   * Resolves when `wait` does, or at shutdown. Not a race with one shutdown promise: a race
   * leaves a reaction on it per call, for as long as the gateway runs.
   */
  const orClosed = (wait: Promise<void>) =>
    closing
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const done = () => {
            closeWaiters.delete(done);
            resolve();
          };
          closeWaiters.add(done);
          wait.then(done, done);
        });
  /** Resolves once no request is in flight, or at shutdown. */
  const whenIdle = async () => {
    if (closing || !deps.whenIdle) return;
    await orClosed(deps.whenIdle());
  };
  const maxWriteWaitMs = deps.maxWriteWaitMs ?? MAX_WRITE_WAIT_MS;
  /**
   * Writes waiting for a moment without requests, each released once: by idleness, by its bound
   * or by `drain`. Callbacks rather than a race of promises: a race leaves a reaction on every
   * promise it is given, and one that lives as long as the gateway would gather one per image.
   */
  const turnWaiters = new Set<() => void>();
  /** Set by `drain`: writes no longer wait for a quiet moment. */
  let hurry = false;
  const releaseTurns = () => {
    for (const release of [...turnWaiters]) release();
  };
  /** One question to the in-flight tracker at a time, whatever the number of writes waiting. */
  let idleAsked = false;
  const askIdle = (trackerIdle: () => Promise<void>) => {
    if (idleAsked) return;
    idleAsked = true;
    const idle = () => {
      idleAsked = false;
      releaseTurns();
    };
    trackerIdle().then(idle, idle);
  };
  /** Resolves once no request is in flight, or `maxWriteWaitMs` after `queuedAt` at the latest. */
  const writerTurn = (queuedAt: number): Promise<void> | undefined => {
    const wait = queuedAt + maxWriteWaitMs - performance.now();
    const trackerIdle = deps.whenIdle;
    if (hurry || wait <= 0 || !trackerIdle) return undefined;
    return new Promise<void>((resolve) => {
      const release = () => {
        clearTimeout(timer);
        turnWaiters.delete(release);
        resolve();
      };
      const timer = setTimeout(release, wait);
      turnWaiters.add(release);
      askIdle(trackerIdle);
    });
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
      await orClosed(new Promise<void>((resolve) => (timer = setTimeout(resolve, wait))));
      clearTimeout(timer);
    }
  };

  /** The batch with its images' base64: in memory, or read back from its journal. */
  const loaded = async (entry: Held): Promise<ImageBatch> => {
    if (!entry.released || !entry.journal) return entry.batch;
    return (await readJournal(entry.journal.path)) ?? entry.batch;
  };
  /** Lets the batch's base64 go once it is journaled, while memory is over its bound. */
  const release = (entry: Held) => {
    if (entry.inMemory === 0 || !entry.journal || heldBytes <= MAX_HELD_BYTES) return;
    heldBytes -= entry.inMemory;
    entry.inMemory = 0;
    entry.released = true;
    entry.batch = {
      ...entry.batch,
      images: entry.batch.images.map((image) => ({ ...image, b64: [] })),
    };
  };
  /**
   * Queues the batch's images for the disk (all but `skip`, already in the gallery), each with
   * its share of the request's cost; its journal goes once the last is written.
   */
  const queueBatch = (entry: Held, requestCostMicros: number, skip: ReadonlySet<number>) => {
    const costs = shareCost(entry.batch, requestCostMicros, deps.priceOf(entry.batch.model));
    const createdAt = deps.now();
    const queuedAt = performance.now();
    // A spooled image is on disk already (a rename and a row are left): it does not wait.
    const decodes = entry.batch.images.some((image, i) => !skip.has(i) && !image.spooled);
    (decodes ? queue : moves).push(async () => {
      await deps.holdWrites;
      if (decodes) await writerTurn(queuedAt);
      const batch = await loaded(entry);
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
        heldBytes -= entry.inMemory;
        entry.inMemory = 0;
        await entry.journaled;
        await entry.journal?.settle();
      }
      // Announced once the journal is settled: whoever sees an image sees no promise left for it.
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
        // Past the page cache where the file system allows: a new file's fresh cache pages cost a
        // 1024x640 image about 5.5 ms of kernel CPU (16.2 against 10.8 ms per image, deferred work
        // included, docs/benchmarks.md); the disk's wait is the writer's alone, after the reply.
        size = await decodeInto(image.b64, abs(file), true);
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
   * Queues a stopped run's journaled images; resolves with how many, or null when the request
   * has no usage record yet (the journal stays). A journal cut short is of a reply that never
   * ended: nothing was delivered, nothing is kept.
   */
  const recoverJournal = async (journal: string): Promise<number | null> => {
    const batch = await readJournal(journal);
    if (!batch) {
      await removeFiles([journal]);
      return 0;
    }
    const cost = (await deps.usageCostOf?.(batch.requestId)) ?? null;
    if (cost === null) {
      deps.log(`request ${batch.requestId}: images wait for its usage record to be kept`);
      return null;
    }
    const kept = (await deps.repo.ofRequests([batch.requestId])).get(batch.requestId) ?? [];
    const skip = new Set(kept.map((image) => image.index));
    const entry: Held = {
      batch,
      journaled: Promise.resolve(),
      // A stopped run's journal is its own file: settled by deleting it.
      journal: { path: journal, settle: () => removeFiles([journal]).catch(() => undefined) },
      inMemory: 0,
      released: false,
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
        const journal = path.join(folder, file);
        const found = await recoverJournal(journal);
        if (found === null) unfinished = waiting = true;
        else kept += found;
      }
      await drainWrites();
      // What is left is the stopped run's spools of images never delivered.
      if (!unfinished) await fs.rm(folder, { recursive: true, force: true });
    }
    if (first ? runs > 0 : kept > 0) deps.log(`kept ${kept} image(s) a stopped run left to keep`);
    if (waiting && !closing) {
      retry = setTimeout(() => {
        recover(false).catch((error: unknown) => deps.log(`gallery recovery: ${String(error)}`));
      }, deps.recoverRetryMs ?? RECOVER_RETRY_MS);
      retry.unref();
    }
    return kept;
  };

  return {
    dir: deps.dir,
    hold(batch) {
      if (batch.images.length === 0) return Promise.resolve();
      touched();
      const inMemory = batch.images.reduce((sum, image) => sum + piecesLength(image.b64), 0);
      heldBytes += inMemory;
      const entry: Held = {
        batch,
        journaled: Promise.resolve(),
        journal: null,
        inMemory,
        released: false,
      };
      // A request hands its images over once; should it do so again, the last word stands.
      const superseded = held.get(batch.requestId);
      if (superseded) {
        heldBytes -= superseded.inMemory;
        superseded.inMemory = 0;
        void superseded.journaled.then(() => superseded.journal?.settle());
      }
      held.set(batch.requestId, entry);
      for (const image of batch.images) if (image.spooled) claimed.add(image.spooled.path);
      entry.journaled = journals.write(batch).then(
        (journal) => {
          entry.journal = journal;
          release(entry);
        },
        (error: unknown) =>
          deps.log(`request ${batch.requestId}: images not journaled: ${String(error)}`),
      );
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
    recover: () => recover(true),
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
      hurry = true;
      releaseTurns();
      await drainWrites();
      journals.closeFree();
      // Thumbnails not made yet are made when first asked; shutdown does not wait for them.
      closing = true;
      closed();
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
