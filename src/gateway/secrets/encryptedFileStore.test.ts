import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEncryptedFileStore } from './encryptedFileStore';
import { SecretStoreError } from './errors';

// Real files in a temp dir and the real key derivation (about 0.3 s per store and salt).
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'atelier-secrets-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let count = 0;
const freshFile = () => path.join(dir, `case-${++count}`, 'secrets.enc');

describe('createEncryptedFileStore', () => {
  it('round-trips secrets through a file that holds none of them in the clear', async () => {
    const file = freshFile();
    const store = createEncryptedFileStore({ file, passphrase: 'correct horse' });
    expect(store.kind).toBe('encrypted-file');
    expect(await store.get('a')).toBeNull();
    await store.set('a', 'sk-alpha');
    await store.set('b', 'clé 🔑 ' + 'x'.repeat(9000));
    await store.set('a', 'sk-alpha-2');
    await store.delete('missing');

    const reopened = createEncryptedFileStore({ file, passphrase: 'correct horse' });
    expect(await reopened.get('a')).toBe('sk-alpha-2');
    expect(await reopened.get('b')).toBe('clé 🔑 ' + 'x'.repeat(9000));
    await reopened.delete('a');
    expect(await store.get('a')).toBeNull();

    const raw = await readFile(file);
    expect(raw.subarray(0, 8).toString('latin1')).toBe('ATSECRET');
    expect(raw.includes('sk-alpha')).toBe(false);
    expect(raw.includes('correct horse')).toBe(false);
  });

  it('treats names such as __proto__ and toString as plain names', async () => {
    const file = freshFile();
    const store = createEncryptedFileStore({ file, passphrase: 'p' });
    await store.set('x', 'y');
    expect(await store.get('toString')).toBeNull();
    expect(await store.get('__proto__')).toBeNull();
    await store.set('__proto__', 'proto-value');
    await store.set('constructor', 'constructor-value');
    const reopened = createEncryptedFileStore({ file, passphrase: 'p' });
    expect(await reopened.get('__proto__')).toBe('proto-value');
    expect(await reopened.get('constructor')).toBe('constructor-value');
    expect(await reopened.get('x')).toBe('y');
  });

  it('refuses a wrong passphrase loudly, on reads and writes, and leaves the file alone', async () => {
    const file = freshFile();
    await createEncryptedFileStore({ file, passphrase: 'right' }).set('a', 'sk-alpha');
    const before = await readFile(file);
    const wrong = createEncryptedFileStore({ file, passphrase: 'wrong' });

    const read = wrong.get('a');
    await expect(read).rejects.toBeInstanceOf(SecretStoreError);
    await expect(read).rejects.toMatchObject({
      code: 'decrypt_failed',
      message: expect.stringMatching(/passphrase .* is wrong, or the file was modified/),
    });
    await expect(wrong.get('never-stored')).rejects.toMatchObject({ code: 'decrypt_failed' });
    await expect(wrong.set('b', 'sk-beta')).rejects.toMatchObject({ code: 'decrypt_failed' });
    await expect(wrong.delete('a')).rejects.toMatchObject({ code: 'decrypt_failed' });
    await expect(wrong.probe()).rejects.toMatchObject({ code: 'decrypt_failed' });
    expect((await readFile(file)).equals(before)).toBe(true);
  });

  it('refuses a file changed anywhere: ciphertext, tag, salt or cost', async () => {
    const file = freshFile();
    const store = createEncryptedFileStore({ file, passphrase: 'p' });
    await store.set('a', 'sk-alpha');
    const original = await readFile(file);
    // ciphertext (last byte), tag (40), salt (12), iv (28)
    for (const at of [original.length - 1, 40, 12, 28]) {
      const tampered = Buffer.from(original);
      tampered[at] = tampered[at]! ^ 0x01;
      await writeFile(file, tampered);
      const fresh = createEncryptedFileStore({ file, passphrase: 'p' });
      await expect(fresh.get('a'), `byte ${at}`).rejects.toMatchObject({ code: 'decrypt_failed' });
    }
    // A raised cost (log2 N at byte 9) is caught as well, before any key is derived from it.
    const costly = Buffer.from(original);
    costly[9] = 30;
    await writeFile(file, costly);
    await expect(store.get('a')).rejects.toMatchObject({ code: 'bad_file' });
  });

  it('refuses a truncated file or a file that is not its own', async () => {
    const file = freshFile();
    const store = createEncryptedFileStore({ file, passphrase: 'p' });
    await store.set('a', 'sk-alpha');
    const original = await readFile(file);
    await writeFile(file, original.subarray(0, 30));
    await expect(store.get('a')).rejects.toMatchObject({ code: 'bad_file' });
    await writeFile(file, '{"a":"sk-alpha"}'.padEnd(80, ' '));
    await expect(store.get('a')).rejects.toMatchObject({ code: 'bad_file' });
    await writeFile(file, Buffer.alloc(0));
    await expect(store.set('a', 'b')).rejects.toMatchObject({ code: 'bad_file' });
  });

  it.skipIf(process.platform === 'win32')('writes the file with mode 0600', async () => {
    const file = freshFile();
    const store = createEncryptedFileStore({ file, passphrase: 'p' });
    await store.set('a', 'sk-alpha');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await store.set('b', 'sk-beta');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
  });

  it('replaces the file by rename, leaving no temp file behind', async () => {
    const file = freshFile();
    const store = createEncryptedFileStore({ file, passphrase: 'p' });
    await store.set('a', 'sk-alpha');
    const first = await stat(file);
    await store.set('b', 'sk-beta');
    expect((await stat(file)).ino).not.toBe(first.ino);
    expect(await readdir(path.dirname(file))).toEqual(['secrets.enc']);
  });

  it('loses no concurrent write, and a concurrent reader never sees half a file', async () => {
    const file = freshFile();
    const writer = createEncryptedFileStore({ file, passphrase: 'p' });
    await writer.set('seed', 'seed');
    const reader = createEncryptedFileStore({ file, passphrase: 'p' });
    await reader.probe(); // derive the reader's key before the race

    const names = Array.from({ length: 20 }, (_, i) => `k${i}`);
    let reading = true;
    let reads = 0;
    const readLoop = (async () => {
      while (reading) {
        expect(await reader.get('seed')).toBe('seed');
        reads += 1;
      }
    })();
    await Promise.all(names.map((name) => writer.set(name, `v-${name}`)));
    reading = false;
    await readLoop;

    expect(reads).toBeGreaterThan(0);
    for (const name of names) expect(await reader.get(name)).toBe(`v-${name}`);
    expect(await readdir(path.dirname(file))).toEqual(['secrets.enc']);
  });

  it('needs a passphrase, and shows neither passphrase nor secrets when inspected', async () => {
    expect(() => createEncryptedFileStore({ file: freshFile(), passphrase: '' })).toThrow(
      SecretStoreError,
    );
    const store = createEncryptedFileStore({ file: freshFile(), passphrase: 'hunter2-secret' });
    await store.set('a', 'sk-do-not-show');
    const shown = inspect(store, { depth: 5, showHidden: true }) + JSON.stringify(store);
    expect(shown).not.toContain('hunter2-secret');
    expect(shown).not.toContain('sk-do-not-show');
  });
});
