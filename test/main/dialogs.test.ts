import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeElectron, type FakeElectron } from './fakeElectron';

const GATEWAY = 'http://127.0.0.1:8787';
const fromStudio = { senderFrame: { url: `${GATEWAY}/` } };
const fromElsewhere = { senderFrame: { url: 'https://evil.example/' } };

let electron: FakeElectron;
let dir: string;

beforeEach(async () => {
  vi.resetModules();
  // Stand-in for `electron`: its binary cannot be downloaded or run here (see fakeElectron.ts).
  electron = createFakeElectron();
  vi.doMock('electron', () => electron);
  // Real files in a temp folder (the data folder): only the native dialog is faked.
  dir = await mkdtemp(join(tmpdir(), 'atelier-dialogs-'));
  const { registerDialogHandlers } = await import('../../src/main/dialogs');
  registerDialogHandlers({ origin: GATEWAY, dataDir: dir, getWindow: () => undefined });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function call(channel: string, event: unknown, ...args: unknown[]) {
  const handler = electron.ipcHandlers.get(channel);
  if (!handler) throw new Error(`no handler for ${channel}`);
  return Promise.resolve().then(() => handler(event, ...args));
}

const SAVE = 'atelier:save-file';
const REVEAL = 'atelier:reveal-in-folder';

describe('save file', () => {
  it.each([
    ['no name', undefined, new Uint8Array([1])],
    ['an empty name', '  ', new Uint8Array([1])],
    ['a path for a name', '../../etc/passwd', new Uint8Array([1])],
    ['a Windows path for a name', 'C:\\temp\\x.png', new Uint8Array([1])],
    ['a name that is too long', `${'a'.repeat(300)}.png`, new Uint8Array([1])],
    ['a string for bytes', 'image.png', 'not bytes'],
    ['an array for bytes', 'image.png', [1, 2, 3]],
    ['empty bytes', 'image.png', new Uint8Array()],
  ])('rejects %s', async (_case, name, bytes) => {
    await expect(call(SAVE, fromStudio, name, bytes)).rejects.toThrow(/name|bytes/);
    expect(electron.dialog.showSaveDialog).not.toHaveBeenCalled();
  });

  it('rejects callers from another origin', async () => {
    await expect(call(SAVE, fromElsewhere, 'a.png', new Uint8Array([1]))).rejects.toThrow(
      /untrusted/,
    );
  });

  it('writes the bytes where the user chose', async () => {
    const target = join(dir, 'chosen.png');
    electron.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: target });
    const result = await call(SAVE, fromStudio, 'lighthouse.png', new Uint8Array([137, 80, 78]));
    expect(result).toEqual({ saved: true, path: target });
    expect([...(await readFile(target))]).toEqual([137, 80, 78]);
    const options = electron.dialog.showSaveDialog.mock.calls[0]?.[0] as { defaultPath: string };
    expect(options.defaultPath).toBe(join('/fake/downloads', 'lighthouse.png'));
  });

  it('reports a cancelled dialog without writing', async () => {
    const result = await call(SAVE, fromStudio, 'lighthouse.png', new Uint8Array([1]));
    expect(result).toEqual({ saved: false });
  });
});

describe('reveal in folder', () => {
  it.each([
    ['no path', undefined],
    ['a number', 42],
    ['a relative path', 'images/a.png'],
    ['a path with a NUL byte', '/tmp/a\0.png'],
  ])('rejects %s', async (_case, path) => {
    await expect(call(REVEAL, fromStudio, path)).rejects.toThrow(/path/);
    expect(electron.shell.showItemInFolder).not.toHaveBeenCalled();
  });

  it('refuses any path outside the data folder, the same way whether it exists or not', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'atelier-outside-'));
    const existing = join(outside, 'secret.txt');
    await writeFile(existing, 'x');
    try {
      const refusals = await Promise.all(
        [
          existing,
          join(outside, 'missing.txt'),
          '/etc/passwd',
          dir, // the folder itself is not a file in it
          join(dir, '..', 'sibling.png'),
          `${dir}-evil/a.png`, // a sibling whose name starts like the data folder
          join(dir, 'images', '..', '..', 'escape.png'),
        ].map((path) =>
          call(REVEAL, fromStudio, path).then(
            () => 'shown',
            (e: Error) => e.message,
          ),
        ),
      );
      expect(new Set(refusals)).toEqual(new Set(["path must be a file in Atelier's data folder"]));
      expect(electron.shell.showItemInFolder).not.toHaveBeenCalled();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('does not check whether a file in the data folder exists (no answer to learn from)', async () => {
    const missing = join(dir, 'images', 'missing.png');
    await call(REVEAL, fromStudio, missing);
    expect(electron.shell.showItemInFolder).toHaveBeenCalledWith(missing);
  });

  it('rejects callers from another origin', async () => {
    await expect(call(REVEAL, fromElsewhere, dir)).rejects.toThrow(/untrusted/);
  });

  it('shows an existing file in the file manager', async () => {
    const file = join(dir, 'a.png');
    await writeFile(file, 'x');
    await call(REVEAL, fromStudio, file);
    expect(electron.shell.showItemInFolder).toHaveBeenCalledWith(file);
  });
});
