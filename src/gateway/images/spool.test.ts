import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createImageSpool, decodeSpooled } from './spool';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-spool-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('image spool', () => {
  it('writes pieces as they come, and decodes them, cut anywhere, to exactly the image bytes', async () => {
    const bytes = randomBytes(3_000_003);
    const text = Buffer.from(bytes.toString('base64'), 'latin1');
    const spool = createImageSpool(dir, () => undefined);
    for (const [from, to] of [
      [0, 1],
      [1, 6],
      [6, 4099],
      [4099, 1_500_001],
      [1_500_001, text.length],
    ] as const)
      spool.write(text.subarray(from, to));
    const spooled = await spool.finish();
    expect(fs.readFileSync(spooled!.path).equals(text)).toBe(true);
    const target = path.join(dir, 'decoded.bin');
    expect(await decodeSpooled(spooled!.path, target)).toBe(bytes.length);
    expect(fs.readFileSync(target).equals(bytes)).toBe(true);
    fs.rmSync(target);
    fs.rmSync(spooled!.path);
  });

  it('holds the stream back while more than 8 MB wait for the disk, and loses nothing', async () => {
    const text = Buffer.from(randomBytes(12 * 1024 * 1024).toString('base64'), 'latin1');
    const spool = createImageSpool(dir, () => undefined);
    let heldBackAt = -1;
    // Written without waiting: no write can complete during this loop, so the queue only grows.
    for (let at = 0; at < text.length; at += 64 * 1024) {
      const waited = spool.write(text.subarray(at, at + 64 * 1024));
      if (waited && heldBackAt < 0) heldBackAt = at;
    }
    expect(heldBackAt).toBeGreaterThan(8 * 1024 * 1024);
    expect(heldBackAt).toBeLessThan(10 * 1024 * 1024);
    const spooled = await spool.finish();
    expect(fs.readFileSync(spooled!.path).equals(text)).toBe(true);
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

  it('reports a file it could not write as not kept, with a log line', async () => {
    const lines: string[] = [];
    const spool = createImageSpool(path.join(dir, 'missing', 'folder'), (l) => lines.push(l));
    spool.write(Buffer.from('iVBORw0KGgo=', 'latin1'));
    expect(await spool.finish()).toBeNull();
    expect(lines.join('\n')).toMatch(/not kept/);
  });
});
