import fs from 'node:fs';
import { piecesAfter } from '../bytes/base64Pieces';

/**
 * A new file written front to back past the page cache (O_DIRECT) where the system allows it.
 *
 * Why: the gallery writes tens of megabytes per 4K image that nobody reads soon. Through the
 * page cache, each of those bytes needs a fresh page of memory, and on the VMs this is measured
 * on a fresh page is dear: 16 x 4K (416 MB) cost 1.2-1.3 s of kernel CPU once the cache had to
 * grow, against 0.04-0.06 s written direct (docs/benchmarks.md, "Keeping images past the page
 * cache"). Direct writes go from our own buffers to the disk; the thread waits on the disk, not
 * on the CPU.
 *
 * O_DIRECT asks for the buffer's address, each write's length and its file offset to be
 * multiples of the device's block: the bytes are copied into page-aligned staging buffers and
 * written a whole number of 4 KB blocks at a time; the last partial block is padded and the file
 * cut back to its true length. Where the file system refuses O_DIRECT (at open or at the first
 * write), the file is written through the page cache as before, with the same result on disk.
 */
export interface UncachedFile {
  /**
   * Appends the pieces in order, as few writes as their length allows (a staging buffer holds
   * four megabytes). Written or copied before it resolves: the caller may reuse them. One call
   * at a time.
   *
   * Pieces that are already fit for the disk are written from where they are, in one `writev`,
   * with no copy: each starts on a page (`isPageAligned`) and is a whole number of blocks long,
   * but for the last, whose partial block is carried to the next call. The gallery's spool
   * decodes into such buffers (bufferPool.ts); anything else is copied into a staging buffer.
   * Either way the write waits its turn for a staging buffer, the bound on writes in flight.
   */
  append(pieces: readonly Buffer[]): Promise<void>;
  /** Writes what is left and closes the file; resolves once it is complete on disk. */
  close(): Promise<void>;
  /** Whether the file is being written past the page cache (false after a fallback). */
  readonly direct: boolean;
}

/** Covers devices of 512-byte and 4 KB logical blocks. */
export const BLOCK = 4096;
/**
 * A staging buffer: four of the gallery's megabyte buffers plus the partial block carried over.
 * A write's cost on the machines measured is mostly its turn (the thread pool's, then the event
 * loop's for the next one): 1 MB writes held 16 x 4K streams back for 41 ms each on average.
 */
export const SLOT = 4 * 1024 * 1024 + BLOCK;
/**
 * Direct writes in flight at once (16 MB of staging), copied or not. Each holds a thread-pool
 * thread while the disk takes it: the pool's four threads, so other file work waits behind at
 * most one each.
 */
const SLOTS = 4;
const WASM_PAGE = 64 * 1024;

/** Page-aligned buffers handed out one writer at a time; a writer waits for one to come back. */
export class StagingPool {
  private readonly waiters: Array<(buffer: Buffer) => void> = [];

  constructor(private readonly free: Buffer[]) {}

  take(): Promise<Buffer> {
    const buffer = this.free.pop();
    if (buffer) return Promise.resolve(buffer);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  give(buffer: Buffer): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(buffer);
    else this.free.push(buffer);
  }
}

let shared: StagingPool | null | undefined;

/** The one WebAssembly part used; Node's types leave the global out (no DOM library here). */
interface WasmMemoryGlobal {
  Memory: new (size: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
}
const wasm = (globalThis as { WebAssembly?: WasmMemoryGlobal }).WebAssembly;

/**
 * `bytes` of memory starting on a page boundary. A WebAssembly memory is the one allocation
 * JavaScript can make that is page-aligned (V8 maps it on its own pages); a Buffer's memory comes
 * from malloc, 16 bytes past a page or anywhere in the heap. Throws where there is no WebAssembly.
 */
export function pageAligned(bytes: number): Buffer {
  const pages = Math.ceil(bytes / WASM_PAGE);
  const memory = new wasm!.Memory({ initial: pages, maximum: pages }).buffer;
  alignedMemories.add(memory);
  return Buffer.from(memory, 0, bytes);
}

/** The memories `pageAligned` made: a view into one starts on a page where its offset does. */
const alignedMemories = new WeakSet<ArrayBufferLike>();

/** Whether `buffer` starts on a page boundary (a view of `pageAligned`'s memory at a page). */
export function isPageAligned(buffer: Buffer): boolean {
  return buffer.byteOffset % BLOCK === 0 && alignedMemories.has(buffer.buffer);
}

/** The process's staging pool, made on first use; null where it cannot be (no WebAssembly). */
function sharedPool(): StagingPool | null {
  if (shared !== undefined) return shared;
  try {
    const whole = pageAligned(SLOTS * SLOT);
    shared = new StagingPool(
      Array.from({ length: SLOTS }, (_, i) => whole.subarray(i * SLOT, (i + 1) * SLOT)),
    );
  } catch {
    shared = null;
  }
  return shared;
}

const { O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
/** Undefined where the platform has none (macOS, Windows): those write through the cache. */
const O_DIRECT = (fs.constants as { O_DIRECT?: number }).O_DIRECT;
/** Set once the gallery's file system has refused O_DIRECT: no file tries again. */
let refused = false;

interface UncachedOptions {
  direct?: boolean;
  pool?: StagingPool;
}

/** The staging pool a file writes through, and whether it tries O_DIRECT at all. */
function plan(opts: UncachedOptions): { pool: StagingPool | null; direct: boolean } {
  const pool = opts.pool ?? (opts.direct === false ? null : sharedPool());
  return {
    pool,
    direct: opts.direct !== false && pool !== null && O_DIRECT !== undefined && !refused,
  };
}

const flagsFor = (direct: boolean) => O_WRONLY | O_CREAT | O_EXCL | (direct ? O_DIRECT! : 0);

/** Whether an open failed only for O_DIRECT (the file system refuses it): then none tries again. */
function refusedDirect(error: unknown, direct: boolean): boolean {
  if (!direct || (error as NodeJS.ErrnoException).code !== 'EINVAL') return false;
  refused = true;
  return true;
}

/**
 * Creates `file` (it must not exist; mode 0600) at once, so it exists as soon as this returns.
 * Throws what opening throws. `pool` is for tests; `direct: false` writes through the cache.
 */
export function createUncachedFile(file: string, opts: UncachedOptions = {}): UncachedFile {
  const { pool, direct } = plan(opts);
  try {
    return writerOn(file, fs.openSync(file, flagsFor(direct), 0o600), direct, pool);
  } catch (error) {
    if (!refusedDirect(error, direct)) throw error;
    return writerOn(file, fs.openSync(file, flagsFor(false), 0o600), false, pool);
  }
}

/**
 * `createUncachedFile` with the file created in the thread pool, for writers with no reason to
 * have it at once (the gallery's queue): the event loop never waits on the file system's create.
 * That is 0.02-0.06 ms on most disks, and about 1 ms where ext4 has no journal and the folder's
 * inode group holds many files deleted in the last 12 hours (each create reads past them; measured
 * in the test suites' /tmp on the VMs this is built on).
 */
export async function openUncachedFile(
  file: string,
  opts: UncachedOptions = {},
): Promise<UncachedFile> {
  const { pool, direct } = plan(opts);
  const open = (flags: number) =>
    new Promise<number>((resolve, reject) =>
      fs.open(file, flags, 0o600, (error, fd) => (error ? reject(error) : resolve(fd))),
    );
  try {
    return writerOn(file, await open(flagsFor(direct)), direct, pool);
  } catch (error) {
    if (!refusedDirect(error, direct)) throw error;
    return writerOn(file, await open(flagsFor(false)), false, pool);
  }
}

/** The writer of `file`, open as `fd` (with O_DIRECT when `direct`). */
function writerOn(
  file: string,
  opened: number,
  directAtOpen: boolean,
  pool: StagingPool | null,
): UncachedFile {
  let fd = opened;
  let direct = directAtOpen;
  /** Where the next write goes: a whole number of blocks while direct. */
  let position = 0;
  /** The bytes after the last whole block, not yet written (direct only). */
  const tail = Buffer.allocUnsafe(BLOCK);
  let tailLength = 0;

  /**
   * The file system took the open but refuses the write (an alignment it wants larger, say):
   * the same descriptor's file, opened again without O_DIRECT, takes the rest.
   */
  const fallBack = () => {
    const buffered = fs.openSync(file, O_WRONLY);
    fs.closeSync(fd);
    fd = buffered;
    direct = false;
  };

  /** Writes `bytes` (whole blocks, from a staging buffer) at `position`, or falls back. */
  const writeStaged = async (bytes: Buffer) => {
    try {
      await writeAll(fd, bytes, position);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
      fallBack();
      await writeAll(fd, bytes, position);
    }
    position += bytes.length;
  };

  /** Writes the carried partial block through the cache (after a fallback). */
  const writeCarried = async () => {
    if (tailLength === 0) return;
    await writeAll(fd, tail.subarray(0, tailLength), position);
    position += tailLength;
    tailLength = 0;
  };

  /** Writes whole blocks straight from the caller's aligned buffers, or falls back. */
  const writeBlocks = async (blocks: readonly Buffer[]) => {
    let rest = blocks.filter((block) => block.length > 0);
    while (rest.length > 0) {
      let written: number;
      try {
        written = await writevAt(fd, rest, position);
      } catch (error) {
        if (!direct || (error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
        // The rest goes through the cache, from the same place.
        fallBack();
        continue;
      }
      if (written === 0) throw new Error('the disk took no bytes');
      position += written;
      rest = piecesAfter(rest, written);
    }
  };

  return {
    get direct() {
      return direct;
    },
    async append(pieces) {
      if (direct && tailLength === 0 && fitForDisk(pieces)) {
        const last = pieces[pieces.length - 1]!;
        const carried = last.length % BLOCK;
        const blocks = pieces.map((piece, i) =>
          i < pieces.length - 1 ? piece : piece.subarray(0, piece.length - carried),
        );
        last.copy(tail, 0, last.length - carried);
        tailLength = carried;
        // Its staging buffer is not needed, but taken all the same: each is also the permit for
        // one direct write in flight, which keeps them to the thread pool's four threads.
        const permit = await pool!.take();
        try {
          await writeBlocks(blocks);
        } finally {
          pool!.give(permit);
        }
        if (!direct) await writeCarried();
        return;
      }
      let index = 0;
      let from = 0;
      while (index < pieces.length) {
        if (!direct) {
          // Through the cache (from the start, or since a fallback): the rest as it is.
          for (; index < pieces.length; index += 1, from = 0) {
            const rest = pieces[index]!.subarray(from);
            await writeAll(fd, rest, position);
            position += rest.length;
          }
          return;
        }
        const stage = await pool!.take();
        try {
          tail.copy(stage, 0, 0, tailLength);
          let staged = tailLength;
          while (index < pieces.length && staged < stage.length) {
            const piece = pieces[index]!;
            const take = Math.min(piece.length - from, stage.length - staged);
            piece.copy(stage, staged, from, from + take);
            staged += take;
            from += take;
            if (from === piece.length) {
              index += 1;
              from = 0;
            }
          }
          const whole = staged - (staged % BLOCK);
          tailLength = staged - whole;
          stage.copy(tail, 0, whole, staged);
          if (whole > 0) await writeStaged(stage.subarray(0, whole));
          // Fell back: what was carried goes out now, through the cache.
          if (!direct) await writeCarried();
        } finally {
          pool!.give(stage);
        }
      }
    },
    async close() {
      try {
        if (direct && tailLength > 0) {
          const stage = await pool!.take();
          try {
            tail.copy(stage, 0, 0, tailLength);
            stage.fill(0, tailLength, BLOCK);
            const length = position + tailLength;
            await writeStaged(stage.subarray(0, BLOCK));
            // The padding goes: the file is exactly its bytes.
            await new Promise<void>((resolve, reject) =>
              fs.ftruncate(fd, length, (error) => (error ? reject(error) : resolve())),
            );
            position = length;
            tailLength = 0;
          } finally {
            pool!.give(stage);
          }
        }
      } finally {
        await new Promise<void>((resolve) => fs.close(fd, () => resolve()));
      }
    },
  };
}

/** Whether every piece starts on a page and all but the last are whole blocks long. */
function fitForDisk(pieces: readonly Buffer[]): boolean {
  if (pieces.length === 0) return false;
  for (let i = 0; i < pieces.length; i += 1) {
    const piece = pieces[i]!;
    if (!isPageAligned(piece)) return false;
    if (i < pieces.length - 1 && piece.length % BLOCK !== 0) return false;
  }
  return true;
}

/** One `writev` of `buffers` at `position`: resolves with the bytes the kernel took. */
function writevAt(fd: number, buffers: readonly Buffer[], position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.writev(fd, buffers as Buffer[], position, (error, written) =>
      error ? reject(error) : resolve(written),
    ),
  );
}

/** Writes all of `bytes` at `position`, looping over short writes. */
async function writeAll(fd: number, bytes: Buffer, position: number): Promise<void> {
  let from = 0;
  while (from < bytes.length) {
    const written = await new Promise<number>((resolve, reject) =>
      fs.write(fd, bytes, from, bytes.length - from, position + from, (error, n) =>
        error ? reject(error) : resolve(n),
      ),
    );
    if (written === 0) throw new Error('the disk took no bytes');
    from += written;
  }
}
