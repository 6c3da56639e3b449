/**
 * Megabyte buffers for the gallery's disk work, used again and again. A fresh large allocation
 * is memory the kernel has to fault in page by page: on the 2-core VMs this is measured on, a new
 * 1 MB buffer costs about 1.2 ms before the first byte is written, a reused one 0.01 ms
 * (docs/benchmarks.md). Small allocations (the 64 KB socket reads) come from the allocator's
 * free lists and need no pool.
 */
const POOLED_BYTES = 1024 * 1024;

/** Kept between uses; a burst that needs more allocates them and lets them go. */
const MAX_POOLED = 32;
const free: Buffer[] = [];

export function takeBuffer(): Buffer {
  return free.pop() ?? Buffer.allocUnsafeSlow(POOLED_BYTES);
}

export function giveBack(buffer: Buffer): void {
  if (buffer.length === POOLED_BYTES && free.length < MAX_POOLED) free.push(buffer);
}
