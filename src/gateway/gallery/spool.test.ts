import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openFilesUnder, openFlags } from '../../../test/support/openFiles';
import { createImageSpool } from './spool';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-spool-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('image spool', () => {
  it('decodes pieces cut anywhere, padded or not, into exactly the image bytes', async () => {
    for (const size of [0, 1, 2, 3, 3_000_003]) {
      const bytes = randomBytes(size);
      const padded = bytes.toString('base64');
      for (const b64 of [padded, padded.replace(/=+$/, '')]) {
        const text = Buffer.from(b64, 'latin1');
        const spool = createImageSpool(dir, () => undefined);
        const cuts = [0, 1, 6, 4099, 1_500_001, text.length].filter((c) => c <= text.length);
        for (let i = 1; i < cuts.length; i++) spool.write(text.subarray(cuts[i - 1], cuts[i]));
        const spooled = await spool.finish();
        expect(spooled!.bytes, `size ${size}`).toBe(bytes.length);
        expect(fs.readFileSync(spooled!.path).equals(bytes), `size ${size}`).toBe(true);
        fs.rmSync(spooled!.path);
      }
    }
  });

  it('keeps images of any size cut anywhere exact, past the page cache or not (property)', async () => {
    // Several megabyte buffers per image: each full one hands its partial block on to the next.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5 * 1024 * 1024 }),
        fc.array(fc.integer({ min: 1, max: 300_000 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (size, steps, direct) => {
          const bytes = randomBytes(size);
          const text = Buffer.from(bytes.toString('base64'), 'latin1');
          const spool = createImageSpool(dir, () => undefined, { direct });
          for (let at = 0, i = 0; at < text.length; i += 1) {
            const end = at + steps[i % steps.length]!;
            await spool.write(text.subarray(at, end));
            at = end;
          }
          const spooled = await spool.finish();
          const ok = spooled!.bytes === size && fs.readFileSync(spooled!.path).equals(bytes);
          fs.rmSync(spooled!.path);
          return ok;
        },
      ),
      { numRuns: 30 },
    );
  });

  /** Writes `text` in 64 KB pieces without waiting; where (in base64 bytes) it was first held back. */
  function writeUntilHeld(spool: ReturnType<typeof createImageSpool>, text: Buffer): number {
    // No write can complete during this loop, so the queue only grows.
    for (let at = 0; at < text.length; at += 64 * 1024)
      if (spool.write(text.subarray(at, at + 64 * 1024))) return at;
    return -1;
  }

  it('holds the stream back once eight full buffers wait for the disk, and loses nothing', async () => {
    const bytes = randomBytes(12 * 1024 * 1024);
    const text = Buffer.from(bytes.toString('base64'), 'latin1');
    const spool = createImageSpool(dir, () => undefined);
    const heldBackAt = writeUntilHeld(spool, text);
    // Eight megabytes of decoded bytes wait: about 10.7 MB of base64 has gone in.
    expect(heldBackAt).toBeGreaterThan(10 * 1024 * 1024);
    expect(heldBackAt).toBeLessThan(11 * 1024 * 1024);
    for (let at = heldBackAt + 64 * 1024; at < text.length; at += 64 * 1024)
      await spool.write(text.subarray(at, at + 64 * 1024));
    const spooled = await spool.finish();
    expect(fs.readFileSync(spooled!.path).equals(bytes)).toBe(true);
    fs.rmSync(spooled!.path);
  });

  it('holds an image back early once all images together have 32 buffers waiting', async () => {
    const images = Array.from({ length: 5 }, () => randomBytes(9 * 1024 * 1024));
    const texts = images.map((bytes) => Buffer.from(bytes.toString('base64'), 'latin1'));
    const spools = images.map(() => createImageSpool(dir, () => undefined));
    // Four images fill their own eight buffers each: 32 in all. The fifth is then held back as
    // soon as one buffer of its own waits, not after eight.
    const held = spools.map((spool, i) => writeUntilHeld(spool, texts[i]!));
    for (const at of held.slice(0, 4)) expect(at).toBeGreaterThan(10 * 1024 * 1024);
    expect(held[4]).toBeGreaterThan(1024 * 1024);
    expect(held[4]).toBeLessThan(2 * 1024 * 1024);
    // Nothing is lost: the rest of each image, then every file is exactly its image.
    for (let i = 0; i < spools.length; i++) {
      for (let at = held[i]! + 64 * 1024; at < texts[i]!.length; at += 64 * 1024)
        await spools[i]!.write(texts[i]!.subarray(at, at + 64 * 1024));
      const spooled = await spools[i]!.finish();
      expect(fs.readFileSync(spooled!.path).equals(images[i]!)).toBe(true);
      fs.rmSync(spooled!.path);
    }
  });

  it('copies what it needs, so the caller may reuse a piece at once', async () => {
    const bytes = randomBytes(2_500_000);
    const text = Buffer.from(bytes.toString('base64'), 'latin1');
    const spool = createImageSpool(dir, () => undefined);
    const scratch = Buffer.alloc(10_001);
    for (let at = 0; at < text.length; at += scratch.length) {
      const n = text.copy(scratch, 0, at);
      spool.write(scratch.subarray(0, n));
      scratch.fill(0x21); // what a pooled socket buffer would do next
    }
    const spooled = await spool.finish();
    expect(fs.readFileSync(spooled!.path).equals(bytes)).toBe(true);
    fs.rmSync(spooled!.path);
  });

  it('discards its file', async () => {
    const before = fs.readdirSync(dir).sort();
    const spool = createImageSpool(dir, () => undefined);
    spool.write(Buffer.from(randomBytes(3000).toString('base64'), 'latin1'));
    // The file exists from the start, so discarding it is what is tested.
    expect(fs.readdirSync(dir)).toHaveLength(before.length + 1);
    await spool.discard();
    expect(fs.readdirSync(dir).sort()).toEqual(before);
  });

  it('writes large images past the page cache and small ones through it', async () => {
    for (const direct of [true, false]) {
      const spool = createImageSpool(dir, () => undefined, { direct });
      const file = openSpoolFile();
      expect(Boolean(openFlags(file) & fs.constants.O_DIRECT), `direct ${direct}`).toBe(direct);
      const bytes = randomBytes(1_500_001);
      await spool.write(Buffer.from(bytes.toString('base64'), 'latin1'));
      const spooled = await spool.finish();
      expect(fs.readFileSync(spooled!.path).equals(bytes)).toBe(true);
      fs.rmSync(spooled!.path);
    }
  });

  it('reports a file it could not write as not kept, with a log line', async () => {
    const lines: string[] = [];
    const spool = createImageSpool(path.join(dir, 'missing', 'folder'), (l) => lines.push(l));
    spool.write(Buffer.from('iVBORw0KGgo=', 'latin1'));
    expect(await spool.finish()).toBeNull();
    expect(lines.join('\n')).toMatch(/not kept/);
  });
});

/** The one spool file this process has open now. */
function openSpoolFile(): string {
  const open = openFilesUnder(dir, '.part');
  expect(open).toHaveLength(1);
  return open[0]!;
}
