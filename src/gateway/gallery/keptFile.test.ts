import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../storage/testing';
import { decodeInto, decodeToFile, openNewFile } from './keptFile';

describe('kept files', () => {
  it('decodes base64 cut into any chunks, padded or not, into exactly its bytes', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'image.png');
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 5000 }),
        fc.array(fc.integer({ min: 1, max: 7000 }), { maxLength: 6 }),
        fc.boolean(),
        async (raw, cuts, unpadded) => {
          const bytes = Buffer.from(raw);
          let b64 = bytes.toString('base64');
          if (unpadded) b64 = b64.replace(/=+$/, '');
          const text = Buffer.from(b64, 'latin1');
          const at = [0, ...cuts.filter((c) => c < text.length).sort((a, b) => a - b), text.length];
          const chunks = at.slice(1).map((end, i) => text.subarray(at[i], end));
          expect(await decodeInto(chunks, out, false)).toBe(bytes.length);
          expect(fs.readFileSync(out).equals(bytes)).toBe(true);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('writes the same bytes at once or a megabyte at a time, into a file opened ahead or not', async () => {
    const dir = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        // Up to 3 MB: several pooled megabytes when stepping.
        fc.integer({ min: 0, max: 3_000_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.boolean(),
        fc.boolean(),
        async (size, pieceLength, atOnce, ahead) => {
          const bytes = randomBytes(size);
          n += 1;
          const text = Buffer.from(bytes.toString('base64'), 'latin1');
          const pieces: Buffer[] = [];
          for (let at = 0; at < text.length; at += pieceLength)
            pieces.push(text.subarray(at, at + pieceLength));
          const file = path.join(dir, `image_${n}.png`);
          const fd = ahead ? await openNewFile(file) : null;
          expect(await decodeToFile(pieces, { path: file, fd }, atOnce)).toBe(size);
          expect(fs.readFileSync(file).equals(bytes)).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });
});
