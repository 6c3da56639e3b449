import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../shared/imageParams';
import { tempDir } from '../storage/testing';
import {
  createRunJournal,
  isDeadRunFolder,
  JOURNAL_SUFFIX,
  readJournal,
  runFolderName,
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

/** journal_2 before journal_10. */
const byNumber = (a: string, b: string) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]);

async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await done()); i += 1) await new Promise((r) => setTimeout(r, 5));
  expect(await done()).toBe(true);
}

describe('the gallery journal', () => {
  it('reads back exactly what was added, for any batches, over any number of files', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.array(fc.nat({ max: 5_000_000 }), { minLength: 1, maxLength: 3 }),
            fc.option(fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b))),
            fc.string(),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        fc.integer({ min: 200, max: 5_000 }),
        async (requests, segmentBytes) => {
          const dir = tempDir();
          const journal = createRunJournal(dir, { segmentBytes });
          const batches = requests.map(([sizes, mask, prompt]) => ({
            ...batchOf(
              sizes.map(() => []),
              mask,
            ),
            requestId: `req_${(n += 1)}`,
            prompt,
            images: batchOf(
              sizes.map(() => []),
              mask,
            ).images.map((image, i) => ({
              ...image,
              spooled: { path: path.join(dir, `${n}_${i}.part`), bytes: sizes[i]! },
            })),
          }));
          // All at once, as requests arrive: lines that wait go out together.
          await Promise.all(batches.map((batch) => journal.add(batch)));
          const files = fs
            .readdirSync(dir)
            .filter((f) => f.endsWith(JOURNAL_SUFFIX))
            .sort(byNumber);
          const read = (await Promise.all(files.map((f) => readJournal(path.join(dir, f))))).flat();
          expect(read.map((batch) => batch.requestId)).toEqual(batches.map((b) => b.requestId));
          read.forEach((batch, i) => {
            const added = batches[i]!;
            expect(batch.prompt).toBe(added.prompt);
            expect(
              batch.mask?.bytes.equals(added.mask?.bytes ?? Buffer.alloc(0)) ?? added.mask === null,
            ).toBe(true);
            expect(batch.images.map((image) => image.spooled)).toEqual(
              added.images.map((image) => image.spooled),
            );
          });
          await journal.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it('never throws on a journal cut short or garbled anywhere, and reads every whole line before', async () => {
    const dir = tempDir();
    const journal = createRunJournal(dir);
    const spooled = (i: number) => ({
      ...batchOf([[]], null),
      requestId: `req_${i}`,
      images: batchOf([[]], null).images.map((image) => ({
        ...image,
        spooled: { path: `/spool/${i}.part`, bytes: 1000 + i },
      })),
    });
    for (let i = 0; i < 3; i += 1) await journal.add(spooled(i));
    await journal.close();
    const [file] = fs.readdirSync(dir);
    const whole = fs.readFileSync(path.join(dir, file!));
    const ends = [...whole.keys()].filter((i) => whole[i] === 10);
    const cut = path.join(dir, 'cut.journal');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: whole.length - 1 }),
        fc.option(fc.integer({ min: 0, max: 255 })),
        async (length, garble) => {
          const bytes = Buffer.from(whole.subarray(0, length));
          if (garble !== null && length > 0) bytes[garble % length] = 0x7b;
          fs.writeFileSync(cut, bytes);
          const read = await readJournal(cut);
          // Cut short: the lines wholly before the cut, no more. Garbled: never more.
          const wholeLines = ends.filter((end) => end < length).length;
          if (garble === null)
            expect(read.map((b) => b.requestId)).toEqual(
              Array.from({ length: wholeLines }, (_, i) => `req_${i}`),
            );
          else expect(read.length).toBeLessThanOrEqual(wholeLines);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('deletes a full journal once all it names is kept, and keeps one that still has work', async () => {
    const dir = tempDir();
    const journal = createRunJournal(dir, { segmentBytes: 1 });
    const line = (i: number) => ({
      ...batchOf([[]], null),
      requestId: `req_${i}`,
      images: batchOf([[]], null).images.map((image) => ({
        ...image,
        spooled: { path: `/spool/${i}.part`, bytes: 1 },
      })),
    });
    // The requests named by the journal files there are, a list per file that names any.
    const named = async () =>
      (
        await Promise.all(
          fs
            .readdirSync(dir)
            .filter((f) => f.endsWith(JOURNAL_SUFFIX))
            .sort(byNumber)
            .map((f) => readJournal(path.join(dir, f)).catch(() => [])),
        )
      )
        .map((batches) => batches.map((b) => b.requestId))
        .filter((ids) => ids.length > 0);
    const first = await journal.add(line(1));
    const second = await journal.add(line(2));
    // Each line fills its file (1 byte at most): two files, both with work.
    expect(await named()).toEqual([['req_1'], ['req_2']]);
    journal.done(first);
    await until(async () => (await named()).length === 1);
    expect(await named()).toEqual([['req_2']]);
    journal.done(second);
    await until(async () => (await named()).length === 0);
    await journal.close();
  });

  it('refuses a batch whose image is not in a file, and a line it could not write', async () => {
    const dir = tempDir();
    const journal = createRunJournal(path.join(dir, 'gone'));
    expect(() => journal.add(batchOf([[Buffer.from('aGk=', 'latin1')]], null))).toThrow(/file/);
    // The folder is a file: nothing can be created in it.
    fs.writeFileSync(path.join(dir, 'gone'), '');
    const batch = batchOf([[]], null);
    await expect(
      journal.add({
        ...batch,
        images: batch.images.map((image) => ({ ...image, spooled: { path: '/x', bytes: 1 } })),
      }),
    ).rejects.toThrow();
    await journal.close();
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
