import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openFlags } from '../../../test/support/openFiles';
import {
  BLOCK,
  createUncachedFile,
  isPageAligned,
  openUncachedFile,
  pageAligned,
  SLOT,
  StagingPool,
} from './uncachedFile';

// A real file system: os.tmpdir() is on the same ext4 disk as the gallery in these runs, where
// O_DIRECT is allowed.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-uncached-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const nextFile = () => path.join(dir, `f${n++}`);

/**
 * Appends `bytes` cut at `cuts`, `group` pieces per call, each piece a copy the test overwrites
 * once the call has resolved (what a reused buffer would do next).
 */
async function writeInPieces(
  file: string,
  bytes: Buffer,
  cuts: number[],
  direct = true,
  group = 1,
) {
  const out = createUncachedFile(file, { direct });
  const points = [0, ...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b)];
  points.push(bytes.length);
  const pieces = points.slice(1).map((end, i) => Buffer.from(bytes.subarray(points[i], end)));
  for (let i = 0; i < pieces.length; i += group) {
    const batch = pieces.slice(i, i + group);
    await out.append(batch);
    for (const piece of batch) piece.fill(0x21);
  }
  await out.close();
  return out;
}

describe('a file written past the page cache', () => {
  it('is created in the thread pool when opened, not on the event loop, as createUncachedFile would', async () => {
    const file = nextFile();
    const openSync = vi.spyOn(fs, 'openSync');
    const out = await openUncachedFile(file);
    // The create was the thread pool's (fs.open): the event loop made no synchronous open.
    expect(openSync).not.toHaveBeenCalled();
    openSync.mockRestore();
    expect(out.direct).toBe(true);
    expect(openFlags(file) & fs.constants.O_DIRECT).toBe(fs.constants.O_DIRECT);
    const bytes = randomBytes(2 * 1024 * 1024 + 5);
    await out.append([bytes]);
    await out.close();
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    // As exclusive as the synchronous create: an existing file is refused, and kept as it was.
    await expect(openUncachedFile(file)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('is opened with O_DIRECT on this file system and holds exactly its bytes', async () => {
    const file = nextFile();
    const out = createUncachedFile(file);
    expect(out.direct).toBe(true);
    expect(openFlags(file) & fs.constants.O_DIRECT).toBe(fs.constants.O_DIRECT);
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    await out.append([bytes.subarray(0, 1_000_003)]);
    await out.append([bytes.subarray(1_000_003, 1_000_004), bytes.subarray(1_000_004)]);
    await out.close();
    expect(out.direct).toBe(true);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('keeps every size and every cut exact, direct and through the cache', async () => {
    const sizes = [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, SLOT - 1, SLOT, SLOT + 1, 2 * SLOT + 5];
    const cuts = [1, BLOCK, 70_000, 1024 * 1024, SLOT - 3, SLOT + 1024 * 1024];
    for (const direct of [true, false])
      for (const group of [1, 4])
        for (const size of sizes) {
          const bytes = randomBytes(size);
          const file = nextFile();
          await writeInPieces(file, bytes, cuts, direct, group);
          const label = `${size} bytes, direct ${direct}, ${group} per call`;
          expect(fs.readFileSync(file).equals(bytes), label).toBe(true);
          fs.rmSync(file);
        }
  });

  it('holds exactly the bytes appended, however they are cut and grouped (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 * SLOT }),
        fc.array(fc.integer({ min: 0, max: 3 * SLOT }), { maxLength: 12 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 6 }),
        async (size, cuts, direct, group) => {
          const bytes = randomBytes(size);
          const file = nextFile();
          await writeInPieces(file, bytes, cuts, direct, group);
          const ok = fs.readFileSync(file).equals(bytes);
          fs.rmSync(file);
          return ok;
        },
      ),
      { numRuns: 40 },
    );
  });

  it('falls back to the page cache when the disk refuses a direct write, losing nothing', async () => {
    // 16 bytes past a page boundary, a buffer is refused by O_DIRECT (EINVAL). From malloc it
    // could happen to sit on a 512-byte boundary, which is all some disks ask for.
    const misaligned = new StagingPool([pageAligned(SLOT + 16).subarray(16)]);
    const file = nextFile();
    const out = createUncachedFile(file, { pool: misaligned });
    expect(out.direct).toBe(true);
    const bytes = randomBytes(2 * SLOT + 123);
    for (let at = 0; at < bytes.length; at += 3_000_000)
      await out.append([
        bytes.subarray(at, at + 1_000_000),
        bytes.subarray(at + 1_000_000, at + 3_000_000),
      ]);
    await out.close();
    expect(out.direct).toBe(false);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('lets more files than staging buffers share them, each waiting its turn', async () => {
    const images = Array.from({ length: 6 }, () => randomBytes(SLOT + 999));
    const files = images.map(() => nextFile());
    await Promise.all(
      images.map(async (bytes, i) => {
        const out = createUncachedFile(files[i]!);
        for (let at = 0; at < bytes.length; at += 1024 * 1024)
          await out.append([bytes.subarray(at, at + 1024 * 1024)]);
        await out.close();
      }),
    );
    images.forEach((bytes, i) => expect(fs.readFileSync(files[i]!).equals(bytes)).toBe(true));
  });

  it('writes page-aligned pieces of whole blocks from where they are, never copying them', async () => {
    // One staging buffer, marked: a piece copied through it leaves other bytes in it.
    const mark = (stage: Buffer) => stage.fill(0x5a);
    const untouched = (stage: Buffer) => stage.every((byte) => byte === 0x5a);
    const stage = pageAligned(SLOT);
    const memory = pageAligned(8 * BLOCK + 2 * 1024 * 1024);
    const bytes = randomBytes(memory.length);
    bytes.copy(memory);
    mark(stage);
    const file = nextFile();
    const out = createUncachedFile(file, { pool: new StagingPool([stage]) });
    // Whole blocks, then a piece whose partial block is carried into the next call's first.
    await out.append([memory.subarray(0, 3 * BLOCK), memory.subarray(3 * BLOCK, 5 * BLOCK)]);
    await out.append([memory.subarray(5 * BLOCK, memory.length - 100)]);
    expect(untouched(stage)).toBe(true);
    await out.append([memory.subarray(memory.length - 100)]);
    await out.close();
    expect(out.direct).toBe(true);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);

    // The same memory 16 bytes in, or a plain buffer, is copied through the staging buffer.
    for (const piece of [memory.subarray(16, 16 + BLOCK), Buffer.from(memory.subarray(0, BLOCK))]) {
      expect(isPageAligned(piece)).toBe(false);
      mark(stage);
      const copied = createUncachedFile(nextFile(), { pool: new StagingPool([stage]) });
      await copied.append([piece]);
      await copied.close();
      expect(untouched(stage)).toBe(false);
    }
  });

  it('keeps direct writes in flight to the staging buffers, copied or not', async () => {
    /** Counts the buffers asked of it, so the test sees the write asking instead of guessing. */
    class CountingPool extends StagingPool {
      asked = 0;
      override take(): Promise<Buffer> {
        this.asked += 1;
        return super.take();
      }
    }
    const pool = new CountingPool([pageAligned(SLOT)]);
    const memory = pageAligned(BLOCK);
    randomBytes(BLOCK).copy(memory);
    const file = nextFile();
    const out = createUncachedFile(file, { pool });
    const permit = await pool.take();
    // Its one staging buffer is out: the aligned piece's write asks for it too, and waits.
    let written = false;
    const writing = out.append([memory]).then(() => (written = true));
    await expect.poll(() => pool.asked).toBe(2);
    expect(written).toBe(false);
    expect(fs.existsSync(file) ? fs.statSync(file).size : 0).toBe(0);
    pool.give(permit);
    await writing;
    await out.close();
    expect(fs.readFileSync(file).equals(memory)).toBe(true);
  });

  it('holds exactly the bytes of aligned and copied pieces mixed, however cut (property)', async () => {
    const memory = pageAligned(3 * SLOT);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            blocks: fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 4 }),
            partial: fc.integer({ min: 0, max: BLOCK - 1 }),
            aligned: fc.boolean(),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.boolean(),
        async (calls, direct) => {
          const file = nextFile();
          const out = createUncachedFile(file, { direct });
          const expected: Buffer[] = [];
          for (const call of calls) {
            // Each call's pieces side by side in the aligned memory (or copies of them), every
            // piece on a page; the last one may end in a partial block.
            let at = 0;
            const pieces = call.blocks.map((count, i) => {
              const length = count * BLOCK + (i === call.blocks.length - 1 ? call.partial : 0);
              const piece = memory.subarray(at, at + length);
              at += Math.ceil(length / BLOCK) * BLOCK;
              randomBytes(length).copy(piece);
              expected.push(Buffer.from(piece));
              return call.aligned ? piece : Buffer.from(piece);
            });
            await out.append(pieces);
            for (const piece of pieces) piece.fill(0x21);
          }
          await out.close();
          const ok = fs.readFileSync(file).equals(Buffer.concat(expected));
          fs.rmSync(file);
          return ok;
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses to create a file that exists, as the spool always has', () => {
    const file = nextFile();
    fs.writeFileSync(file, 'x');
    expect(() => createUncachedFile(file)).toThrow(/EEXIST/);
  });
});
