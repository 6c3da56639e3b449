import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { emptyUsage } from '../../shared/imageParams';
import { tempDir } from '../storage/testing';
import {
  createJournals,
  isDeadRunFolder,
  MAX_FREE_SLOTS,
  readJournal,
  runFolderName,
  type Journals,
} from './journal';
import type { ImageBatch } from './batch';

const batchOf = (images: Buffer[][], mask: Buffer | null): ImageBatch => ({
  requestId: 'req_journal',
  source: 'api',
  endpoint: '/v1/images/generations',
  prompt: 'a prompt with "quotes" and\nnewlines',
  model: 'image-model-2',
  requestedSize: '1024x1024',
  quality: 'low',
  outputCompression: null,
  background: 'auto',
  moderation: null,
  apiKeyId: 'key_1',
  parentId: null,
  mask: mask ? { bytes: mask, format: 'png' } : null,
  images: images.map((b64, i) => ({
    b64,
    width: 1024,
    height: 1024,
    format: 'png',
    revisedPrompt: i === 0 ? null : `revised ${i}`,
    fallbackStep: null,
    usage: emptyUsage(),
  })),
});

const base64Piece = fc
  .uint8Array({ minLength: 0, maxLength: 300 })
  .map((bytes) => Buffer.from(Buffer.from(bytes).toString('base64'), 'latin1'));

describe('the gallery journal', () => {
  it('reads back exactly what was written, for any pieces, in a slot written before', async () => {
    const dir = tempDir();
    // One run's journals: each batch reuses the slot the last one settled, whatever its length.
    const journals = createJournals(dir);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(base64Piece, { maxLength: 5 }), { minLength: 1, maxLength: 3 }),
        fc.option(fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b))),
        async (images, mask) => {
          const batch = { ...batchOf(images, mask), requestId: `req_${(n += 1)}` };
          const journal = await journals.write(batch);
          const read = (await readJournal(journal.path))!;
          await journal.settle();
          expect(await readJournal(journal.path)).toBeNull();
          expect(read.requestId).toBe(batch.requestId);
          expect(read.prompt).toBe(batch.prompt);
          expect(read.mask?.bytes.equals(mask ?? Buffer.alloc(0)) ?? mask === null).toBe(true);
          expect(read.images.map((i) => Buffer.concat(i.b64).toString('latin1'))).toEqual(
            images.map((pieces) => Buffer.concat(pieces).toString('latin1')),
          );
          expect(read.images.map((i) => i.revisedPrompt)).toEqual(
            batch.images.map((i) => i.revisedPrompt),
          );
        },
      ),
      { numRuns: 60 },
    );
    // Settled slots are written again rather than new files made.
    expect(fs.readdirSync(dir)).toEqual(['slot-1.journal']);
  });

  it('gives each live journal a slot of its own, and settles each once', async () => {
    const dir = tempDir();
    const journals = createJournals(dir);
    const piece = (text: string) => [Buffer.from(Buffer.from(text).toString('base64'), 'latin1')];
    const [a, b] = await Promise.all([
      journals.write({ ...batchOf([piece('first')], null), requestId: 'req_a' }),
      journals.write({ ...batchOf([piece('second')], null), requestId: 'req_b' }),
    ]);
    expect(a!.path).not.toBe(b!.path);
    await a!.settle();
    await a!.settle();
    // a's slot is free again: the next batch takes it, and b's is untouched.
    const c = await journals.write({
      ...batchOf([piece('third, longer')], null),
      requestId: 'req_c',
    });
    expect(c.path).toBe(a!.path);
    expect((await readJournal(b!.path))!.requestId).toBe('req_b');
    expect((await readJournal(c.path))!.images[0]!.b64[0]!.toString('latin1')).toBe(
      Buffer.from('third, longer').toString('base64'),
    );
    // Closed while free, the slot is opened again when next needed.
    await c.settle();
    journals.closeFree();
    const d = await journals.write({ ...batchOf([piece('fourth')], null), requestId: 'req_d' });
    expect([a!.path, b!.path]).toContain(d.path);
    expect((await readJournal(d.path))!.requestId).toBe('req_d');
    // A free slot's file gone while closed: the next batch gets a new one.
    await d.settle();
    journals.closeFree();
    fs.rmSync(d.path);
    const e = await journals.write({ ...batchOf([piece('fifth')], null), requestId: 'req_e' });
    expect(e.path).not.toBe(d.path);
    expect((await readJournal(e.path))!.requestId).toBe('req_e');
  });

  /** `n` journals live at once, then all settled: a burst the queue kept only at its end. */
  const burst = async (journals: Journals, n: number, tag: string) => {
    const piece = [Buffer.from(Buffer.alloc(3000, 5).toString('base64'), 'latin1')];
    const live = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        journals.write({ ...batchOf([piece], null), requestId: `req_${tag}_${i}` }),
      ),
    );
    for (const journal of live) expect((await readJournal(journal.path))?.requestId).toMatch(tag);
    for (const journal of live) await journal.settle();
    return live.map((journal) => journal.path);
  };

  it("keeps a burst's slots for the next one, and trims them once journals stop coming", async () => {
    const n = MAX_FREE_SLOTS + 8;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const dir = tempDir();
    const journals = createJournals(dir, { warmForMs: 60_000 });
    try {
      const first = await burst(journals, n, 'first');
      expect(journals.free.slots).toBe(n);
      // 59 s later, a second burst as large writes into the same files: none is made.
      await vi.advanceTimersByTimeAsync(59_000);
      const second = await burst(journals, n, 'second');
      expect(new Set(second)).toEqual(new Set(first));
      expect(fs.readdirSync(dir)).toHaveLength(n);
      // The minute counts from the last journal: 59 s after the second burst, all still kept.
      await vi.advanceTimersByTimeAsync(59_000);
      expect(journals.free.slots).toBe(n);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(journals.free.slots).toBe(MAX_FREE_SLOTS);
    } finally {
      vi.useRealTimers();
    }
    // The files of the trimmed slots go too (deleted in the background).
    await expect.poll(() => fs.readdirSync(dir).length).toBe(MAX_FREE_SLOTS);
    const sizes = fs.readdirSync(dir).map((file) => fs.statSync(path.join(dir, file)).size);
    expect(journals.free.bytes).toBe(sizes.reduce((sum, size) => sum + size, 0));
  });

  it('keeps free slots only within their bytes, and closeFree trims at once', async () => {
    const dir = tempDir();
    const size = fs.statSync((await burst(createJournals(tempDir()), 1, 'bounded'))[0]!).size;
    const journals = createJournals(dir, { warmBytes: 3 * size + size - 1 });
    await burst(journals, 10, 'bounded');
    expect(journals.free).toEqual({ slots: 3, bytes: 3 * size });
    await expect.poll(() => fs.readdirSync(dir).length).toBe(3);

    const roomy = createJournals(tempDir(), { warmForMs: 3_600_000 });
    await burst(roomy, MAX_FREE_SLOTS + 5, 'roomy');
    expect(roomy.free.slots).toBe(MAX_FREE_SLOTS + 5);
    roomy.closeFree();
    expect(roomy.free.slots).toBe(MAX_FREE_SLOTS);
  });

  it('reads a write cut short over an earlier journal as nothing, wherever it was cut', async () => {
    const dir = tempDir();
    const journals = createJournals(dir);
    const long = [Buffer.from(Buffer.alloc(600, 7).toString('base64'), 'latin1')];
    const short = [Buffer.from(Buffer.alloc(90, 9).toString('base64'), 'latin1')];
    const earlier = await journals.write({ ...batchOf([long, long], null), requestId: 'req_long' });
    await earlier.settle();
    const settledFirst = fs.readFileSync(earlier.path);
    expect(await readJournal(earlier.path)).toBeNull();
    const mask = Buffer.alloc(40, 3);
    const later = await journals.write({ ...batchOf([short], mask), requestId: 'req_short' });
    expect(later.path).toBe(earlier.path);
    const after = fs.readFileSync(later.path);
    const read = (await readJournal(later.path))!;
    expect(read.requestId).toBe('req_short');
    expect(read.mask?.bytes.equals(mask)).toBe(true);
    // A kill during the second write leaves any prefix of it over the settled first.
    // Whole once the seal's last character is in (its newline is for a reader's eye only).
    const sealed = after.indexOf(10) + 1 + short[0]!.length + mask.length + 16;
    const cut = path.join(dir, 'cut.journal');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: sealed - 1 }), async (length) => {
        const bytes = Buffer.from(settledFirst);
        after.copy(bytes, 0, 0, length);
        fs.writeFileSync(cut, bytes);
        expect(await readJournal(cut)).toBeNull();
        after.copy(bytes, 0, 0, sealed);
        fs.writeFileSync(cut, bytes);
        expect((await readJournal(cut))?.requestId).toBe('req_short');
      }),
      { numRuns: 200 },
    );
  });

  it('answers null, never throws, for a journal cut short or garbled anywhere', async () => {
    const dir = tempDir();
    const journal = await createJournals(dir).write(
      batchOf([[Buffer.from('aGVsbG8gd29ybGQ=', 'latin1')]], Buffer.from('the mask')),
    );
    const whole = fs.readFileSync(journal.path);
    const cut = path.join(dir, 'cut.journal');
    await fc.assert(
      fc.asyncProperty(
        // Whole once its seal is in: only the last newline may be missing.
        fc.integer({ min: 0, max: whole.length - 2 }),
        fc.option(fc.integer({ min: 0, max: 255 })),
        async (length, garble) => {
          const bytes = Buffer.from(whole.subarray(0, length));
          if (garble !== null && length > 0) bytes[garble % length] = 0x7b;
          fs.writeFileSync(cut, bytes);
          const read = await readJournal(cut);
          // Garbling may leave a valid journal of other text; a cut one never reads.
          if (garble === null) expect(read).toBeNull();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads a journal an earlier version wrote: no seal, the mask as base64 in its line', async () => {
    const dir = tempDir();
    const mask = Buffer.from([0, 1, 2, 250, 255]);
    const text = Buffer.from('aGVsbG8gd29ybGQ=', 'latin1');
    const { mask: _mask, images, ...rest } = batchOf([[text]], null);
    const head = {
      ...rest,
      mask: { b64: mask.toString('base64'), format: 'png' },
      images: images.map(({ b64: _b64, ...image }) => ({ ...image, b64Length: text.length })),
    };
    const file = path.join(dir, 'old.journal');
    fs.writeFileSync(file, Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`), text]));
    const read = (await readJournal(file))!;
    expect(read.mask?.bytes.equals(mask)).toBe(true);
    expect(Buffer.concat(read.images[0]!.b64).equals(text)).toBe(true);
    // Its length is exact: one byte more or less is not whole.
    fs.appendFileSync(file, 'x');
    expect(await readJournal(file)).toBeNull();
  });

  it("tells a dead process's run folder from a live one's", () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    expect(
      isDeadRunFolder(runFolderName('0123abcd').replace(`_${process.pid}_`, `_${gone}_`)),
    ).toBe(true);
    expect(isDeadRunFolder(runFolderName('0123abcd'))).toBe(false);
    // The parent of this process is alive: its folder is not taken.
    expect(
      isDeadRunFolder(runFolderName('0123abcd').replace(`_${process.pid}_`, `_${process.ppid}_`)),
    ).toBe(false);
    // Another machine's, and the layout before journals: never.
    expect(isDeadRunFolder(`run_elsewhere_${gone}_0123abcd`)).toBe(false);
    expect(isDeadRunFolder('run_0123abcd')).toBe(false);
  });
});
