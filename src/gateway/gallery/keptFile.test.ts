import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../storage/testing';
import { decodeInto } from './keptFile';

describe('kept files', () => {
  it('decodes base64 cut into any chunks, padded or not, direct or not, into exactly its bytes', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'image.png');
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 5000 }),
        fc.array(fc.integer({ min: 1, max: 7000 }), { maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        async (raw, cuts, unpadded, direct) => {
          const bytes = Buffer.from(raw);
          let b64 = bytes.toString('base64');
          if (unpadded) b64 = b64.replace(/=+$/, '');
          const text = Buffer.from(b64, 'latin1');
          const at = [0, ...cuts.filter((c) => c < text.length).sort((a, b) => a - b), text.length];
          const chunks = at.slice(1).map((end, i) => text.subarray(at[i], end));
          // Past the page cache or through it (the gallery's small images go past it).
          fs.rmSync(out, { force: true });
          expect(await decodeInto(chunks, out, direct)).toBe(bytes.length);
          expect(fs.readFileSync(out).equals(bytes)).toBe(true);
        },
      ),
      { numRuns: 80 },
    );
  });
});
