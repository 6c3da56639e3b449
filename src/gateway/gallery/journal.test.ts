import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../shared/imageParams';
import { tempDir } from '../storage/testing';
import { isDeadRunFolder, readJournal, runFolderName, writeJournal } from './journal';
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
  it('reads back exactly what was written, for any pieces', async () => {
    const dir = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(base64Piece, { maxLength: 5 }), { minLength: 1, maxLength: 3 }),
        fc.option(fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b))),
        async (images, mask) => {
          const batch = { ...batchOf(images, mask), requestId: `req_${(n += 1)}` };
          const file = await writeJournal(dir, batch);
          const read = (await readJournal(file))!;
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
  });

  it('answers null, never throws, for a journal cut short or garbled anywhere', async () => {
    const dir = tempDir();
    const whole = fs.readFileSync(
      await writeJournal(dir, batchOf([[Buffer.from('aGVsbG8gd29ybGQ=', 'latin1')]], null)),
    );
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
          // Garbling may leave a valid journal of other text; a cut one never reads.
          if (garble === null) expect(read).toBeNull();
        },
      ),
      { numRuns: 200 },
    );
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
