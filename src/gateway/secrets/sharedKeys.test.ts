import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENGINES, testStorage } from '../storage/testing';
import { rotateSecretKey } from './databaseStore';
import { secretKeyOf } from './secretKey';
import { sharedKey } from './sharedKeys';

const storedValue = async (engine: Awaited<ReturnType<typeof testStorage>>['engine']) =>
  (await engine.get<{ value: string }>("SELECT value FROM shared_keys WHERE name = 'url_images'"))!
    .value;

describe.each(ENGINES)('shared keys on %s', (kind) => {
  it('is made once and read alike by every connection, a name per key', async () => {
    const { engine, connect } = await testStorage(kind);
    const other = await connect();
    const first = await sharedKey(engine, 'url_images', 1);
    expect(first).toHaveLength(32);
    expect(await sharedKey(other, 'url_images', 2)).toEqual(first);
    expect(await sharedKey(engine, 'another', 3)).not.toEqual(first);
  });

  it('is stored sealed under the database secret key, never in plain text', async () => {
    const { engine, connect } = await testStorage(kind);
    const secret = secretKeyOf(randomBytes(32));
    const made = await sharedKey(engine, 'url_images', 1, secret);
    const stored = await storedValue(engine);
    expect(stored).toMatch(new RegExp(`^sealed:v1:${secret.id}:`));
    expect(stored).not.toContain(made.toString('hex'));
    // Another instance with the same key reads the same key; without it, or with another, none.
    const other = await connect();
    expect(await sharedKey(other, 'url_images', 2, secret)).toEqual(made);
    await expect(sharedKey(other, 'url_images', 2)).rejects.toMatchObject({
      code: 'bad_config',
      message: expect.stringContaining(secret.id),
    });
    await expect(
      sharedKey(other, 'url_images', 2, secretKeyOf(randomBytes(32))),
    ).rejects.toMatchObject({ code: 'wrong_key' });
    // A changed byte does not authenticate.
    const flipped = stored.slice(0, -1) + (stored.endsWith('0') ? '1' : '0');
    await engine.run("UPDATE shared_keys SET value = ? WHERE name = 'url_images'", [flipped]);
    await expect(sharedKey(other, 'url_images', 2, secret)).rejects.toMatchObject({
      code: 'decrypt_failed',
    });
  });

  it('seals a key stored in plain text before, the first time an instance with a secret key asks', async () => {
    const { engine } = await testStorage(kind);
    const plain = await sharedKey(engine, 'url_images', 1);
    expect(await storedValue(engine)).toBe(plain.toString('hex'));
    const secret = secretKeyOf(randomBytes(32));
    expect(await sharedKey(engine, 'url_images', 2, secret)).toEqual(plain);
    expect(await storedValue(engine)).toMatch(/^sealed:v1:/);
    expect(await sharedKey(engine, 'url_images', 3, secret)).toEqual(plain);
  });

  it('is sealed again by a key rotation, with the secrets', async () => {
    const { engine } = await testStorage(kind);
    const current = secretKeyOf(randomBytes(32));
    const next = secretKeyOf(randomBytes(32));
    const made = await sharedKey(engine, 'url_images', 1, current);
    const before = await storedValue(engine);
    expect(await rotateSecretKey(engine, current, next)).toBe(1);
    const after = await storedValue(engine);
    expect(after).toMatch(new RegExp(`^sealed:v1:${next.id}:`));
    expect(after).not.toBe(before);
    expect(await sharedKey(engine, 'url_images', 2, next)).toEqual(made);
    await expect(sharedKey(engine, 'url_images', 2, current)).rejects.toMatchObject({
      code: 'wrong_key',
    });
    // Nothing left under the old key: a second rotation to the same key changes nothing.
    expect(await rotateSecretKey(engine, secretKeyOf(randomBytes(32)), next)).toBe(0);
  });
});

describe('shared keys on PostgreSQL, asked for by three instances at once', () => {
  it('gives all three the same key', async () => {
    const { engine, connect } = await testStorage('postgres');
    const engines = [engine, await connect(), await connect()];
    const keys = await Promise.all(engines.map((e) => sharedKey(e, 'url_images', 1)));
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(1);
  });

  it('gives all three the same key when each seals it', async () => {
    const { engine, connect } = await testStorage('postgres');
    const secret = secretKeyOf(randomBytes(32));
    const engines = [engine, await connect(), await connect()];
    const keys = await Promise.all(engines.map((e) => sharedKey(e, 'url_images', 1, secret)));
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(1);
  });
});
