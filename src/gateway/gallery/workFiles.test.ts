import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkFiles, WorkFilesFull } from './workFiles';

const dirs: string[] = [];
const folder = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-work-'));
  dirs.push(dir);
  return path.join(dir, 'studio-work');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('work files (the studio’s Edit work on disk)', () => {
  it('bounds all files together, counting a replaced file once, checked before writing', async () => {
    const files = createWorkFiles(folder(), 100);
    await files.put('a', Buffer.alloc(60));
    await files.put('a', Buffer.alloc(90)); // replaces: 90 in all
    await expect(files.put('b', Buffer.alloc(20))).rejects.toBeInstanceOf(WorkFilesFull);
    expect(await files.list()).toEqual([{ key: 'a', bytes: 90 }]);
    await files.put('b', Buffer.alloc(10));
    expect(await files.list()).toEqual([
      { key: 'a', bytes: 90 },
      { key: 'b', bytes: 10 },
    ]);
  });

  it('holds the bound when writes race: one at a time, so at most the bound is kept', async () => {
    const files = createWorkFiles(folder(), 100);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => files.put(`k${i}`, Buffer.alloc(30))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const kept = await files.list();
    expect(kept.reduce((sum, f) => sum + f.bytes, 0)).toBe(90);
  });

  it('lists nothing and finds nothing before the first write; removing twice says so', async () => {
    const files = createWorkFiles(folder(), 100);
    expect(await files.list()).toEqual([]);
    expect(await files.find('a')).toBeNull();
    expect(await files.remove('a')).toBe(false);
    await files.put('a', Buffer.from('x'));
    expect(await files.find('a')).toMatch(/a\.bin$/);
    expect(await files.remove('a')).toBe(true);
    expect(await files.remove('a')).toBe(false);
  });
});
