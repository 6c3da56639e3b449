import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeElectron, type FakeElectron } from './fakeElectron';

const GATEWAY = 'http://127.0.0.1:8787';
const DRAG = 'atelier:start-drag';

let electron: FakeElectron;
let folder: string;

beforeEach(async () => {
  vi.resetModules();
  // Stand-in for `electron` (see fakeElectron.ts); the files are real.
  electron = createFakeElectron();
  vi.doMock('electron', () => electron);
  folder = join(await mkdtemp(join(tmpdir(), 'atelier-drag-test-')), 'drag');
  const { registerDragOutHandler } = await import('../../src/main/dragOut');
  registerDragOutHandler({ origin: GATEWAY, folder });
});

afterEach(async () => {
  await rm(join(folder, '..'), { recursive: true, force: true });
});

function sender() {
  return { startDrag: vi.fn() };
}

function call(event: unknown, ...args: unknown[]) {
  const handler = electron.ipcHandlers.get(DRAG);
  if (!handler) throw new Error(`no handler for ${DRAG}`);
  return Promise.resolve().then(() => handler(event, ...args));
}

describe('dragging an image out of the studio', () => {
  it('writes the bytes under their name and starts the drag of that file, with its icon', async () => {
    const contents = sender();
    const event = { senderFrame: { url: `${GATEWAY}/gallery` }, sender: contents };
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const result = (await call(event, 'harbour.png', bytes)) as { path: string };
    expect(result.path).toBe(join(folder, 'harbour.png'));
    expect(new Uint8Array(await readFile(result.path))).toEqual(bytes);
    expect(contents.startDrag).toHaveBeenCalledWith({
      file: result.path,
      icon: { path: result.path, width: 96 },
    });

    // The next drag replaces the last file: the folder does not grow.
    await call(event, 'lighthouse.webp', new Uint8Array([1]));
    expect(await readdir(folder)).toEqual(['lighthouse.webp']);
  });

  it('refuses other origins, paths for names and empty bytes, and starts no drag', async () => {
    const contents = sender();
    const studio = { senderFrame: { url: `${GATEWAY}/` }, sender: contents };
    await expect(
      call(
        { senderFrame: { url: 'https://evil.example/' }, sender: contents },
        'a.png',
        new Uint8Array([1]),
      ),
    ).rejects.toThrow(/untrusted/);
    await writeFile(join(folder, '..', 'outside.png'), 'keep');
    await expect(call(studio, '../outside.png', new Uint8Array([1]))).rejects.toThrow(/name/);
    await expect(call(studio, 'a.png', new Uint8Array())).rejects.toThrow(/bytes/);
    await expect(call(studio, 'a.png', 'not bytes')).rejects.toThrow(/bytes/);
    expect(await readFile(join(folder, '..', 'outside.png'), 'utf8')).toBe('keep');
    expect(contents.startDrag).not.toHaveBeenCalled();
  });
});
