import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../storage/testing';
import { decodedPath, decodeInto, readKeptImage } from './keptFile';

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

  it('reads an image in either form, and the decoded one once the base64 has gone', async () => {
    const dir = tempDir();
    const bytes = Buffer.from('an image, or near enough');
    const encoded = path.join(dir, 'img_1.png.b64');
    fs.writeFileSync(encoded, bytes.toString('base64'));
    expect(decodedPath(encoded)).toBe(path.join(dir, 'img_1.png'));
    expect((await readKeptImage(encoded)).equals(bytes)).toBe(true);
    // Decoded meanwhile (by the idle queue, or another run): the row's old name still reads.
    fs.writeFileSync(decodedPath(encoded), bytes);
    fs.rmSync(encoded);
    expect((await readKeptImage(encoded)).equals(bytes)).toBe(true);
    expect((await readKeptImage(decodedPath(encoded))).equals(bytes)).toBe(true);
    fs.rmSync(decodedPath(encoded));
    await expect(readKeptImage(encoded)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
