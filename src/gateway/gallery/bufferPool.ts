import { pageAligned } from './uncachedFile';

/**
 * Megabyte buffers for the gallery's disk work, used again and again. A fresh large allocation
 * is memory the kernel has to fault in page by page: on the 2-core VMs this is measured on, a new
 * 1 MB buffer costs about 1.2 ms before the first byte is written, a reused one 0.01 ms
 * (docs/benchmarks.md). Small allocations (the 64 KB socket reads) come from the allocator's
 * free lists and need no pool.
 *
 * The first ones start on a page boundary (carved from `pageAligned` memory, made a block of
 * `PER_BLOCK` at a time): a spool decodes a 4K image into them and its file, written past the
 * page cache, takes them as they are, where any other buffer is first copied into a staging
 * buffer (uncachedFile.ts): 26 MB of copying per 4K image on the reply's event loop.
 */
const POOLED_BYTES = 1024 * 1024;

/** Kept between uses; a burst that needs more allocates them and lets them go. */
const MAX_POOLED = 32;
/** Page-aligned buffers made per block of memory, and the blocks made at most. */
const PER_BLOCK = 16;
const MAX_ALIGNED_BLOCKS = MAX_POOLED / PER_BLOCK;

const alignedFree: Buffer[] = [];
const plainFree: Buffer[] = [];
let alignedBlocks = 0;
/** Set where page-aligned memory cannot be made (no WebAssembly): plain buffers only. */
let noAligned = false;
const aligned = new WeakSet<Buffer>();

/** A free page-aligned buffer, a new block of them while under the bound, or null. */
function takeAligned(): Buffer | null {
  const free = alignedFree.pop();
  if (free || noAligned || alignedBlocks >= MAX_ALIGNED_BLOCKS) return free ?? null;
  let block: Buffer;
  try {
    block = pageAligned(PER_BLOCK * POOLED_BYTES);
  } catch {
    noAligned = true;
    return null;
  }
  alignedBlocks += 1;
  for (let i = PER_BLOCK - 1; i >= 1; i -= 1) {
    const buffer = block.subarray(i * POOLED_BYTES, (i + 1) * POOLED_BYTES);
    aligned.add(buffer);
    alignedFree.push(buffer);
  }
  const first = block.subarray(0, POOLED_BYTES);
  aligned.add(first);
  return first;
}

export function takeBuffer(): Buffer {
  return takeAligned() ?? plainFree.pop() ?? Buffer.allocUnsafeSlow(POOLED_BYTES);
}

export function giveBack(buffer: Buffer): void {
  // A page-aligned buffer is part of a block that lives as long as the process: always kept.
  if (aligned.has(buffer)) alignedFree.push(buffer);
  else if (buffer.length === POOLED_BYTES && alignedFree.length + plainFree.length < MAX_POOLED)
    plainFree.push(buffer);
}
