import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENGINES, tempDir, testStorage } from '../storage/testing';
import { writeAccountSecret, readAccountSecret } from './accountSecret';
import { createDatabaseSecretStore, rotateSecretKey } from './databaseStore';
import { SecretStoreError } from './errors';
import { openSecretStore, secretStoreChoice } from './index';
import {
  generateSecretKey,
  parseSecretKey,
  readSecretKeyFile,
  secretKeyFromEnv,
  secretKeyOf,
} from './secretKey';

const keyA = parseSecretKey(generateSecretKey(), 'test key A');
const keyB = parseSecretKey(generateSecretKey(), 'test key B');
const TOKEN = 'sk-live-DO-NOT-LEAK-7f3a9c';

describe.each(ENGINES)('the database secret store on %s', (kind) => {
  it('round-trips secrets, and no row holds one in the clear', async () => {
    const { engine, connect } = await testStorage(kind);
    const store = createDatabaseSecretStore({ engine, key: keyA });
    expect(store.kind).toBe('database');
    expect(await store.get('a')).toBeNull();
    await store.set('a', TOKEN);
    await store.set('b', 'clé 🔑 ' + 'x'.repeat(9000));
    await store.set('a', `${TOKEN}-2`);
    await store.delete('missing');

    // Another connection (another instance) with the same key reads what this one wrote.
    const other = createDatabaseSecretStore({ engine: await connect(), key: keyA });
    expect(await other.get('a')).toBe(`${TOKEN}-2`);
    expect(await other.get('b')).toBe('clé 🔑 ' + 'x'.repeat(9000));
    await other.delete('a');
    expect(await store.get('a')).toBeNull();

    const rows = await engine.all<{ name: string; key_id: string; nonce: Buffer; sealed: Buffer }>(
      'SELECT name, key_id, nonce, sealed FROM secrets',
    );
    expect(rows.map((r) => r.name)).toEqual(['b']);
    for (const row of rows) {
      expect(row.key_id).toBe(keyA.id);
      expect(row.nonce).toHaveLength(12);
      expect(row.sealed.includes('x'.repeat(16))).toBe(false);
      expect(row.sealed.includes(keyA.bytes)).toBe(false);
    }
    await expect(store.probe()).resolves.toBeUndefined();
  });

  it('seals each value with a nonce of its own', async () => {
    const { engine } = await testStorage(kind);
    const store = createDatabaseSecretStore({ engine, key: keyA });
    await store.set('one', TOKEN);
    await store.set('two', TOKEN);
    const rows = await engine.all<{ nonce: Buffer; sealed: Buffer }>(
      'SELECT nonce, sealed FROM secrets ORDER BY name',
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]?.nonce.equals(rows[1]?.nonce ?? Buffer.alloc(0))).toBe(false);
    expect(rows[0]?.sealed.equals(rows[1]?.sealed ?? Buffer.alloc(0))).toBe(false);
  });

  it('refuses a secret sealed under another key with a clear error, at start and on read', async () => {
    const { engine } = await testStorage(kind);
    await createDatabaseSecretStore({ engine, key: keyA }).set('account/1', TOKEN);
    const wrong = createDatabaseSecretStore({ engine, key: keyB });
    const onRead = await wrong.get('account/1').catch((error: unknown) => error);
    expect(onRead).toBeInstanceOf(SecretStoreError);
    expect((onRead as SecretStoreError).code).toBe('wrong_key');
    expect((onRead as Error).message).toContain(keyA.id);
    expect((onRead as Error).message).toContain(keyB.id);
    expect((onRead as Error).message).toContain('ATELIER_SECRET_KEY');
    await expect(wrong.probe()).rejects.toMatchObject({
      code: 'wrong_key',
      message: expect.stringContaining('1 secret(s) in the database are sealed') as string,
    });
  });

  it('refuses a changed row, and a row moved onto another name', async () => {
    const { engine } = await testStorage(kind);
    const store = createDatabaseSecretStore({ engine, key: keyA });
    await store.set('victim', TOKEN);
    await store.set('attacker', 'sk-attacker');
    const row = await engine.get<{ nonce: Buffer; sealed: Buffer }>(
      'SELECT nonce, sealed FROM secrets WHERE name = ?',
      ['victim'],
    );
    if (!row) throw new Error('no row');

    // One flipped bit of the ciphertext.
    const flipped = Buffer.from(row.sealed);
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    await engine.run('UPDATE secrets SET sealed = ? WHERE name = ?', [flipped, 'victim']);
    await expect(store.get('victim')).rejects.toMatchObject({ code: 'decrypt_failed' });

    // The attacker's row sealed validly, but for another name: the name is authenticated.
    await engine.run('UPDATE secrets SET nonce = ?, sealed = ? WHERE name = ?', [
      row.nonce,
      row.sealed,
      'attacker',
    ]);
    const moved = await store.get('attacker').catch((error: unknown) => error);
    expect(moved).toMatchObject({ code: 'decrypt_failed' });
    expect((moved as Error).message).not.toContain(TOKEN);

    // A truncated row.
    await engine.run('UPDATE secrets SET sealed = ? WHERE name = ?', [Buffer.alloc(3), 'victim']);
    await expect(store.get('victim')).rejects.toMatchObject({ code: 'decrypt_failed' });
  });

  it('rotates the key: every secret sealed again in one transaction, readable only with the new key', async () => {
    const { engine } = await testStorage(kind);
    const store = createDatabaseSecretStore({ engine, key: keyA });
    await writeAccountSecret(store, 'account/oauth', {
      type: 'oauth',
      accessToken: TOKEN,
      refreshToken: 'rt-1',
      idToken: 'id-1',
      expiresAt: 1_900_000_000_000,
    });
    await store.set('account/key', 'sk-plain');
    const before = await engine.all<{ nonce: Buffer }>('SELECT nonce FROM secrets ORDER BY name');

    expect(await rotateSecretKey(engine, keyA, keyB)).toBe(2);
    const rotated = createDatabaseSecretStore({ engine, key: keyB });
    await rotated.probe();
    expect(await rotated.get('account/key')).toBe('sk-plain');
    const secret = await readAccountSecret(rotated, 'account/oauth');
    expect(secret?.type === 'oauth' && secret.accessToken).toBe(TOKEN);
    const after = await engine.all<{ key_id: string; nonce: Buffer }>(
      'SELECT key_id, nonce FROM secrets ORDER BY name',
    );
    expect(after.every((r) => r.key_id === keyB.id)).toBe(true);
    after.forEach((row, i) =>
      expect(row.nonce.equals(before[i]?.nonce ?? Buffer.alloc(0))).toBe(false),
    );
    await expect(store.get('account/key')).rejects.toMatchObject({ code: 'wrong_key' });
    // Nothing left under the old key: rotating again with it finds nothing to open.
    expect(await rotateSecretKey(engine, keyA, keyB)).toBe(0);
    await expect(rotateSecretKey(engine, keyB, keyB)).rejects.toMatchObject({ code: 'bad_config' });
  });

  it('rotates all or nothing: one row it cannot open leaves every row as it was', async () => {
    const { engine } = await testStorage(kind);
    const keyC = secretKeyOf(Buffer.alloc(32, 7));
    await createDatabaseSecretStore({ engine, key: keyA }).set('a', 'one');
    await createDatabaseSecretStore({ engine, key: keyA }).set('b', 'two');
    await createDatabaseSecretStore({ engine, key: keyC }).set('c', 'three');
    const before = await engine.all('SELECT * FROM secrets ORDER BY name');
    await expect(rotateSecretKey(engine, keyA, keyB)).rejects.toMatchObject({ code: 'wrong_key' });
    expect(await engine.all('SELECT * FROM secrets ORDER BY name')).toEqual(before);
  });
});

describe('secret keys', () => {
  it('reads 32 bytes as base64 (either alphabet, padded or not) or hex, and nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (raw) => {
        const bytes = Buffer.from(raw);
        const id = secretKeyOf(bytes).id;
        const b64 = bytes.toString('base64');
        expect(parseSecretKey(b64, 'k').id).toBe(id);
        expect(parseSecretKey(`  ${b64.replace('=', '')}\n`, 'k').id).toBe(id);
        expect(parseSecretKey(bytes.toString('base64url'), 'k').id).toBe(id);
        expect(parseSecretKey(bytes.toString('hex').toUpperCase(), 'k').bytes.equals(bytes)).toBe(
          true,
        );
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .uint8Array({ maxLength: 64 })
            .filter((a) => a.length !== 32)
            .map((a) => Buffer.from(a).toString('base64')),
          fc
            .uint8Array({ maxLength: 64 })
            .filter((a) => a.length !== 32)
            .map((a) => Buffer.from(a).toString('hex')),
        ),
        (text) => {
          let error: unknown;
          try {
            parseSecretKey(text, 'ATELIER_SECRET_KEY');
          } catch (caught) {
            error = caught;
          }
          expect(error).toBeInstanceOf(SecretStoreError);
          // The refusal names the setting, never the text given.
          if (text.trim().length > 3) expect((error as Error).message).not.toContain(text.trim());
        },
      ),
    );
  });

  it('never prints the key', () => {
    const key = parseSecretKey(generateSecretKey(), 'k');
    const hex = key.bytes.toString('hex');
    expect(inspect(key)).toBe(`SecretKey { id: '${key.id}' }`);
    expect(JSON.stringify(key)).not.toContain(key.bytes.toString('base64'));
    expect(inspect(key, { showHidden: true })).not.toContain(hex.slice(0, 8));
  });

  it('takes the key from the environment or a private file, not both', () => {
    const dir = tempDir();
    const file = path.join(dir, 'secret.key');
    const text = generateSecretKey();
    writeFileSync(file, `${text}\n`, { mode: 0o600 });
    expect(secretKeyFromEnv({})).toBeNull();
    expect(secretKeyFromEnv({ ATELIER_SECRET_KEY: text })?.id).toBe(parseSecretKey(text, 'k').id);
    expect(secretKeyFromEnv({ ATELIER_SECRET_KEY_FILE: file })?.id).toBe(
      parseSecretKey(text, 'k').id,
    );
    expect(() =>
      secretKeyFromEnv({ ATELIER_SECRET_KEY: text, ATELIER_SECRET_KEY_FILE: file }),
    ).toThrow(/not both/);
    expect(() => readSecretKeyFile(path.join(dir, 'missing'), 'F')).toThrow(/ENOENT/);
    if (process.platform !== 'win32') {
      const open = path.join(dir, 'open.key');
      writeFileSync(open, text, { mode: 0o644 });
      expect(() => readSecretKeyFile(open, 'F')).toThrow(/chmod 600/);
    }
  });
});

describe('which store a process opens', () => {
  it('keeps the keychain on the desktop and the database on PostgreSQL or with a key', async () => {
    const { engine: sqlite } = await testStorage('sqlite');
    const { engine: postgres } = await testStorage('postgres');
    const key = generateSecretKey();
    expect(secretStoreChoice({}, sqlite)).toBe('keychain');
    expect(secretStoreChoice({}, undefined)).toBe('keychain');
    expect(secretStoreChoice({}, postgres)).toBe('database');
    expect(secretStoreChoice({ ATELIER_SECRET_KEY: key }, sqlite)).toBe('database');
    expect(secretStoreChoice({ ATELIER_SECRET_STORE: 'keychain' }, postgres)).toBe('keychain');
    expect(() => secretStoreChoice({ ATELIER_SECRET_STORE: 'plain' }, sqlite)).toThrow(
      /keychain, encrypted-file, database/,
    );

    const dataDir = tempDir();
    const opened = await openSecretStore({
      dataDir,
      env: { ATELIER_SECRET_KEY: key },
      engine: postgres,
    });
    expect(opened.kind).toBe('database');
    // No key: refused, saying how to make one; never a store that keeps secrets in the clear.
    await expect(openSecretStore({ dataDir, env: {}, engine: postgres })).rejects.toMatchObject({
      code: 'bad_config',
      message: expect.stringContaining('atelier secrets generate-key') as string,
    });
    await expect(
      openSecretStore({
        dataDir,
        env: { ATELIER_SECRET_STORE: 'database', ATELIER_SECRET_KEY: key },
      }),
    ).rejects.toMatchObject({ code: 'bad_config' });
  });
});
