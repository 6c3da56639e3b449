/**
 * The bytes of one upload part, gathered into one buffer as they arrive rather than kept as chunks
 * and joined at the end.
 *
 * Joining a 21 MB image at the end copied it into fresh memory after its last byte (tens of
 * milliseconds on the reply's path on these machines) while the socket's chunks were still alive,
 * so the part sat in memory twice. Here each chunk is copied once, while the upload is still
 * arriving, and can be collected at once.
 *
 * The buffer is sized from the body still to come (`capacityHint`: what the Content-Length says is
 * left, capped at the part's size limit): exact for the last part of a body, more than enough for
 * the others. Pages of it that are never written are never touched, so the unused end costs
 * address space, not memory. Without a hint it grows by doubling. Should the buffer not be had at
 * all (a system that refuses to overcommit), the chunks are kept and joined as before.
 */
export class ArrivingBytes {
  private buffer: Buffer | null = null;
  private chunks: Buffer[] | null = null;
  private filled = 0;

  constructor(private readonly capacityHint: () => number | null) {}

  /** Bytes received so far. */
  get size(): number {
    return this.filled;
  }

  push(chunk: Buffer): void {
    if (this.chunks) {
      this.chunks.push(chunk);
    } else {
      const buffer = this.room(chunk.length);
      if (buffer) chunk.copy(buffer, this.filled);
      else (this.chunks = this.buffer ? [this.buffer.subarray(0, this.filled)] : []).push(chunk);
    }
    this.filled += chunk.length;
  }

  /** Everything received, as one buffer (a view of the gathered one: no copy). */
  bytes(): Buffer {
    if (this.chunks) return Buffer.concat(this.chunks, this.filled);
    return this.buffer ? this.buffer.subarray(0, this.filled) : Buffer.alloc(0);
  }

  /** Lets go of what was received (a refused upload whose body is still being drained). */
  release(): void {
    this.buffer = null;
    this.chunks = null;
    this.filled = 0;
  }

  /** A buffer with room for `more` bytes after what is filled; null when none can be had. */
  private room(more: number): Buffer | null {
    const needed = this.filled + more;
    if (this.buffer && needed <= this.buffer.length) return this.buffer;
    const hint = this.capacityHint();
    const capacity = Math.max(
      needed,
      this.buffer ? this.buffer.length * 2 : (hint ?? FIRST_CAPACITY_WITHOUT_HINT),
    );
    let grown: Buffer;
    try {
      grown = Buffer.allocUnsafeSlow(capacity);
    } catch {
      return null;
    }
    if (this.buffer) this.buffer.copy(grown, 0, 0, this.filled);
    this.buffer = grown;
    return grown;
  }
}

/** Where a part of unknown length starts: one megabyte, then doubling. */
const FIRST_CAPACITY_WITHOUT_HINT = 1024 * 1024;
